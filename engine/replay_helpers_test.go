package engine

import (
	"slices"
	"time"
)

// history is a rule and its events, recorded by the engine's own code
// (NewRule, Correct, Retract, the merge of a candidate) as the memory
// records them, with event ids from 1.
type history struct {
	r         Rule
	evs       []Event
	cfg       Config
	retracted map[int64]bool
	next      int64
}

// newHistory is rule id created at the prior at at, as `rules add` does
// (stated by the user when stated).
func newHistory(id string, at time.Time, stated bool) *history {
	h := &history{cfg: DefaultConfig(), retracted: map[int64]bool{}}
	h.r = NewRule(id, CategoryToolPreference, SeverityMust, "Always install tools with curl | sh", Scope{}, h.cfg, at)
	if stated {
		h.r.State(StatedRuleAdded, h.r.Text, at)
	}
	h.add(Event{EventType: EventCreation, Detail: "created (source: user)", Alpha: h.r.Alpha, Beta: h.r.Beta, At: at})
	return h
}

// add appends ev with the next id.
func (h *history) add(ev Event) *Event {
	h.next++
	ev.EventID, ev.RuleID = h.next, h.r.RuleID
	h.evs = append(h.evs, ev)
	return &h.evs[len(h.evs)-1]
}

// correct records a correction of polarity p at at (Correct), stating
// the rule when stated is an act's name.
func (h *history) correct(p Polarity, at time.Time, stated string) *history {
	out, err := Correct(h.r, Correction{RuleID: h.r.RuleID, Polarity: p, UserText: "words", At: at, Stated: stated}, h.cfg, noExceptions)
	if err != nil {
		panic(err)
	}
	h.r = out.Rule
	h.add(out.Event)
	if out.Promotion != nil {
		h.add(*out.Promotion)
	}
	return h
}

// noExceptions is an ExceptionState with no counterexample tags.
func noExceptions(string) (map[string]int, []string, error) { return nil, nil, nil }

// retract retracts event id at at (Retract, with the last evidence
// memory.Retract finds: the newest correction by id that stays).
func (h *history) retract(id int64, at time.Time) *history {
	var ev Event
	var last time.Time
	for _, e := range slices.Backward(h.evs) {
		if e.EventID == id {
			ev = e
		} else if last.IsZero() && e.Polarity != 0 && !h.retracted[e.EventID] && e.EventID != id {
			last = e.At
		}
	}
	ret, err := Retract(h.r, ev, last, at)
	if err != nil {
		panic(err)
	}
	h.r = ret.Rule
	h.retracted[id] = true
	h.add(ret.Event)
	return h
}

// mergeCandidate adds the history of a candidate proposed from a
// correction at at, with k reinforcements after it, then merges it into
// the rule at mergeAt, as MergeRule does.
func (h *history) mergeCandidate(at time.Time, k int, mergeAt time.Time) *history {
	c := NewCandidateRule("use ripgrep", "", Scope{}, h.cfg, at)
	h.add(Event{EventType: EventCreation, UserText: "use ripgrep", Alpha: c.Alpha, Beta: c.Beta, At: at})
	for i := range k {
		c.ApplyEvidence(Reinforce, at.Add(time.Duration(i+1)*time.Second))
		h.add(Event{EventType: EventReinforcement, Polarity: Reinforce, UserText: "rg", Alpha: c.Alpha, Beta: c.Beta, At: at.Add(time.Duration(i+1) * time.Second)})
	}
	r := &h.r
	r.MergeEvidence(c)
	h.add(Event{EventType: EventManualOverride, Detail: MergedCandidatePrefix + c.RuleID + ": +1 reinforcements, +0 counterexamples",
		Alpha: r.Alpha, Beta: r.Beta, At: mergeAt})
	return h
}

// replay replays h's events on its rule and returns the first error.
func (h *history) replay() error {
	return replayOf(h.r, h.evs, ReplayOptions{Retracted: func(id int64) bool { return h.retracted[id] }})
}

// replayOf replays evs on r with opts and returns the first error.
func replayOf(r Rule, evs []Event, opts ReplayOptions) error {
	p := NewReplay(r, opts)
	for _, ev := range evs {
		if _, err := p.Step(ev); err != nil {
			return err
		}
	}
	return p.Finish()
}
