package engine

import (
	"strconv"
	"strings"
	"time"
)

// replayThread is the running state of one history within a rule's: the
// rule's own, or that of a candidate merged into it later.
type replayThread struct {
	Rule // its evidence: Alpha, Beta, the counts, FirstSeen, LastCorrection
	// marks are its corrections that a later event retracts, not
	// retracted yet; stable is its newest correction no event retracts.
	marks  []replayMark
	stable replayMark
	// createdAt and createdID are the place and id of its creation;
	// candidate says it was created as a candidate (proposed from a
	// correction, or an exception proposal).
	createdAt int
	createdID int64
	candidate bool
}

// replayMark is what the replay keeps of a correction: its id, time and
// polarity.
type replayMark struct {
	id  int64
	at  time.Time
	pol Polarity
}

// create replays a creation: at a prior; a candidate proposed from a
// correction (its words in the event) at a prior and that correction; an
// exception proposal (once in a history) at a prior and the
// counterexamples that revealed it.
func (p *Replay) create(ev Event) (Polarity, error) {
	for _, pr := range p.opts.Priors {
		t, evidence, ok := p.createAt(pr, ev)
		if !ok {
			continue
		}
		p.exception = p.exception || t.Reinforcements > 0 && evidence == 0
		p.threads = append(p.threads, t)
		p.maybeStated(t, ev)
		return evidence, nil
	}
	pr := p.opts.Priors[0]
	if p.rule.ExceptionOf != "" {
		return 0, Errorf(EINVALID, "a creation records the prior (alpha %g, beta %g), or for an exception proposal the prior and in alpha at most the counterexamples of the rule it is an exception to (%d); it records alpha %g and beta %g",
			pr.Alpha, pr.Beta, p.opts.ParentCounterexamples, ev.Alpha, ev.Beta)
	}
	return 0, Errorf(EINVALID, "a creation records the prior (alpha %g, beta %g), or the prior and the correction a candidate was proposed from (alpha 1 more, the correction's words in the event); it records alpha %g and beta %g",
		pr.Alpha, pr.Beta, ev.Alpha, ev.Beta)
}

// createAt replays creation ev from prior pr, reporting whether it follows.
func (p *Replay) createAt(pr Prior, ev Event) (*replayThread, Polarity, bool) {
	at := ev.At.UTC()
	t := &replayThread{createdAt: p.n, createdID: ev.EventID}
	t.RuleID, t.Alpha, t.Beta, t.FirstSeen, t.LastCorrection = p.rule.RuleID, pr.Alpha, pr.Beta, at, at
	if ev.Beta != pr.Beta {
		return nil, 0, false
	}
	switch k := ev.Alpha - pr.Alpha; {
	case k == 0:
		return t, 0, true
	case p.rule.ExceptionOf != "" && !p.exception && k >= 1 && k <= float64(p.opts.ParentCounterexamples) && k == float64(int(k)):
		t.Alpha += k
		t.Reinforcements, t.candidate = int(k), true
		return t, 0, t.Alpha == ev.Alpha
	case k == 1 && ev.UserText != "":
		t.ApplyEvidence(Reinforce, at)
		t.candidate = true
		return t, Reinforce, t.Alpha == ev.Alpha
	}
	return nil, 0, false
}

// evidence replays a reinforcement, counterexample or confirmation on the
// history whose α and β it follows (Rule.ApplyEvidence).
func (p *Replay) evidence(ev Event) error {
	for _, t := range p.threads {
		a, b := t.Alpha, t.Beta
		if ev.Polarity == Counter {
			b++
		} else {
			a++
		}
		if a != ev.Alpha || b != ev.Beta {
			continue
		}
		t.ApplyEvidence(ev.Polarity, ev.At)
		m := replayMark{id: ev.EventID, at: ev.At, pol: ev.Polarity}
		if p.opts.Retracted(ev.EventID) {
			t.marks = append(t.marks, m)
		} else {
			t.stable = m
		}
		if ev.Polarity == Counter {
			p.counters++
		} else {
			p.maybeStated(t, ev)
		}
		return nil
	}
	t, side := p.threads[0], "alpha"
	a, b := t.Alpha+1, t.Beta
	if ev.Polarity == Counter {
		a, b, side = t.Alpha, t.Beta+1, "beta"
	}
	return Errorf(EINVALID, "it adds 1 to %s: from alpha %g and beta %g it gives alpha %g and beta %g; it records alpha %g and beta %g",
		side, t.Alpha, t.Beta, a, b, ev.Alpha, ev.Beta)
}

// override replays a manual_override: a retraction, the merge of a
// candidate, or an edit that changes no evidence.
func (p *Replay) override(ev Event) (ReplayStep, error) {
	if id, ok := RetractedEventID(ev); ok {
		return ReplayStep{Retracts: id}, p.retraction(ev, id)
	}
	if strings.HasPrefix(ev.Detail, MergedCandidatePrefix) {
		return ReplayStep{}, p.merge(ev)
	}
	t := p.unchanged(ev)
	if t == nil {
		return ReplayStep{}, p.noChange(ev)
	}
	p.accepted = true
	p.maybeStated(t, ev)
	return ReplayStep{}, nil
}

// unchanged is the history whose α and β ev records, nil when none.
func (p *Replay) unchanged(ev Event) *replayThread {
	for _, t := range p.threads {
		if t.Alpha == ev.Alpha && t.Beta == ev.Beta {
			return t
		}
	}
	return nil
}

// maybeStated notes that ev, an event of t that can make a statement,
// explains the rule's.
func (p *Replay) maybeStated(t *replayThread, ev Event) {
	if s := p.rule.Stated; s != nil && ev.At.Equal(s.At) && t.CounterExamples == s.CounterBase {
		p.stated = true
	}
}

// retractedPrefix starts the detail of a retraction (see Retract).
const retractedPrefix = "retracted event "

// MergedCandidatePrefix starts the detail of the manual_override that
// records the merge of a candidate into a rule.
const MergedCandidatePrefix = "merged candidate "

// RetractedEventID returns the id of the event that ev, a retraction
// written by Retract, retracts, and whether it is one.
func RetractedEventID(ev Event) (int64, bool) {
	if ev.EventType != EventManualOverride {
		return 0, false
	}
	rest, ok := strings.CutPrefix(ev.Detail, retractedPrefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, " ")
	id, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// RenumberRetraction returns the detail of retraction ev naming the
// retracted event by id instead: ids are a store's own.
func RenumberRetraction(ev Event, id int64) string {
	rest := strings.TrimPrefix(ev.Detail, retractedPrefix)
	_, tail, _ := strings.Cut(rest, " ")
	return retractedPrefix + strconv.FormatInt(id, 10) + " " + tail
}
