package engine

import (
	"strings"
	"time"
	"unicode/utf8"
)

// MaxEventCandidates bounds the rules an event or a confirmation may list
// as the classifier's candidates: it records its top K (5 by default).
const MaxEventCandidates = 100

// Prior is an (alpha, beta) a rule can be created at.
type Prior struct{ Alpha, Beta float64 }

// ReplayPriors are the priors a rule of a memory configured with cfg may
// have been created at: cfg's, and DefaultConfig's for a rule created
// before the prior was changed.
func ReplayPriors(cfg Config) []Prior {
	d := DefaultConfig()
	out := []Prior{{cfg.AlphaPrior, cfg.BetaPrior}}
	if d.AlphaPrior != cfg.AlphaPrior || d.BetaPrior != cfg.BetaPrior {
		out = append(out, Prior{d.AlphaPrior, d.BetaPrior})
	}
	return out
}

// ReplayOptions say what a rule's history is replayed from.
type ReplayOptions struct {
	// Priors are those the rule (and every candidate merged into it) may
	// have been created at (see ReplayPriors); none: DefaultConfig's.
	Priors []Prior
	// Retracted reports whether a later event of the history retracts
	// the event of that id: the replay keeps the time and evidence of
	// those events (and of no other) until their retraction. nil: none.
	Retracted func(eventID int64) bool
	// ParentCounterexamples is, for an exception proposal, the number of
	// counterexample events of the rule it is an exception to: its
	// creation's evidence (those that revealed the pattern) is at most that.
	ParentCounterexamples int
}

// ReplayStep is what one event did to the rule, as the replay found it.
type ReplayStep struct {
	// Evidence is the correction the event recorded: a reinforcement, a
	// counterexample, a confirmation, or the creation of a candidate
	// proposed from a correction (its first reinforcement); 0 for none.
	Evidence Polarity
	// Retracts is the id of the event this one retracts (a manual_override
	// written by Retract), 0 for none.
	Retracts int64
}

// Replay checks a rule's history one event at a time, oldest first, as it
// was recorded: from the prior, each event must leave the rule's α and β,
// counts and times where the code that records it (Rule.ApplyEvidence,
// Retract, the merge of a candidate) leaves them, and the rule must end as
// it says it is. It holds the rule's running state, never its events: the
// time and evidence of an event a later one retracts (see
// ReplayOptions.Retracted) are all it keeps of any event.
//
// The history must start with the rule's creation, at a prior (or, for a
// candidate proposed from a correction, a prior and that correction; for
// an exception proposal, a prior and at most ParentCounterexamples). After
// it, event ids rise strictly; times need not (a backfilled correction
// keeps its own time, and moves first_seen back to it), but no creation
// or correction is dated before the rule's first_seen, and first_seen and
// last_correction are where the replay leaves them. An edit, an archive
// or a violation may be dated back before the creation, as the commands
// that record them allow. By type:
//
//   - a reinforcement adds 1 to α, a counterexample 1 to β, a confirmation
//     its polarity's (ApplyEvidence, at the event's time);
//   - a promotion, a violation and a manual_override that edits, archives
//     or syncs change neither;
//   - a manual_override that retracts ("retracted event N …", Retract)
//     takes back the evidence of event N, an earlier correction of the rule
//     not retracted yet, and moves last_correction to the newest correction
//     that stays;
//   - a later creation starts the history of a candidate that a
//     manual_override "merged candidate …" (MergeRule) adds to the rule:
//     its counts to α and β, exactly.
//
// Each event may list at most MaxEventCandidates candidates. The rule's
// statement (Rule.Stated), if any, must be that of an event of the
// history at its time which could make it (a creation, a reinforcement or
// confirmation, a manual_override), with as many counterexamples counted
// then, and no retraction since of an event of that time: a statement
// puts a rule in force at once, so the history must show the act. A rule
// created as a candidate (proposed from a correction, or an exception
// proposal) is active-eligible only after a promotion or a
// manual_override in its history. The history ends with one history
// left: every candidate created in it merged.
//
// Errors are EINVALID, naming the rule, the event (its place in the
// history and its event_id) and what does not follow; once Step has
// failed it returns the same error.
type Replay struct {
	rule Rule
	opts ReplayOptions
	// threads are the histories not merged into another yet, oldest
	// first: the rule's own and those of candidates merged into it later
	// (which comes first is known only once the others are merged).
	threads []*replayThread
	n       int // events stepped
	lastID  int64
	// counters counts the counterexample events of the history;
	// exception: an exception proposal's creation was replayed.
	counters  int
	exception bool
	// accepted: a promotion or manual_override was replayed; stated: an
	// event explains rule.Stated and no retraction withdrew it since.
	accepted, stated bool
	err              error
}

// NewReplay starts the replay of the history of r, the rule as exported.
func NewReplay(r Rule, opts ReplayOptions) *Replay {
	if len(opts.Priors) == 0 {
		opts.Priors = ReplayPriors(DefaultConfig())
	}
	if opts.Retracted == nil {
		opts.Retracted = func(int64) bool { return false }
	}
	return &Replay{rule: r, opts: opts}
}

// Counterexamples is the number of counterexample events stepped (a
// counterexample, or a confirmation of one).
func (p *Replay) Counterexamples() int { return p.counters }

// Step replays the next event of the history.
func (p *Replay) Step(ev Event) (ReplayStep, error) {
	if p.err != nil {
		return ReplayStep{}, p.err
	}
	p.n++
	st, err := p.step(ev)
	if err != nil {
		p.err = Errorf(EINVALID, "rule %s, its event #%d (event_id %d, %s %s): %s", p.rule.RuleID, p.n, ev.EventID,
			article(ev.EventType), ev.EventType, ErrorMessage(err))
		return ReplayStep{}, p.err
	}
	p.lastID = ev.EventID
	return st, nil
}

func (p *Replay) step(ev Event) (ReplayStep, error) {
	if err := p.eventFields(ev); err != nil {
		return ReplayStep{}, err
	}
	if len(p.threads) == 0 && ev.EventType != EventCreation {
		return ReplayStep{}, Errorf(EINVALID, "a rule's history starts with its creation")
	}
	switch ev.EventType {
	case EventCreation:
		e, err := p.create(ev)
		return ReplayStep{Evidence: e}, err
	case EventReinforcement, EventCounterexample, EventConfirmation:
		return ReplayStep{Evidence: ev.Polarity}, p.evidence(ev)
	case EventManualOverride:
		return p.override(ev)
	}
	if p.unchanged(ev) == nil { // a promotion, a violation
		return ReplayStep{}, p.noChange(ev)
	}
	if ev.EventType == EventPromotion {
		p.accepted = true
	}
	return ReplayStep{}, nil
}

// eventFields checks what an event says of itself: its id after the
// previous one's, the polarity of its type, its candidates, its time.
func (p *Replay) eventFields(ev Event) error {
	switch {
	case ev.RuleID != p.rule.RuleID:
		return Errorf(EINVALID, "it is an event of rule %.140q", ev.RuleID)
	case ev.EventID <= 0:
		return Errorf(EINVALID, "it has no event_id")
	case ev.EventID <= p.lastID:
		return Errorf(EINVALID, "its event_id is not above the previous event's (%d): the history is out of order", p.lastID)
	case len(ev.Candidates) > MaxEventCandidates:
		return Errorf(EINVALID, "it lists %d candidates: at most %d", len(ev.Candidates), MaxEventCandidates)
	case ev.At.IsZero():
		return Errorf(EINVALID, "it has no time")
	case ev.At.Before(p.rule.FirstSeen) && (ev.Polarity != 0 || ev.EventType == EventCreation):
		return Errorf(EINVALID, "it is dated %s, before the rule's first_seen %s", stamp(ev.At), stamp(p.rule.FirstSeen))
	}
	want, err := ev.EventType.Polarity(ev.Polarity)
	if err != nil {
		return err
	}
	if ev.Polarity != want {
		return Errorf(EINVALID, "%s %s has the polarity %d; it records %d", article(ev.EventType), ev.EventType, want, ev.Polarity)
	}
	return nil
}

// Finish checks that the history explains the rule: every merged
// candidate's history merged, the rule's α, β, counts, first_seen and
// last_correction those of the replay, its statement and status explained.
func (p *Replay) Finish() error {
	if p.err != nil {
		return p.err
	}
	r := &p.rule
	if len(p.threads) == 0 {
		return Errorf(EINVALID, "rule %s has no events: nothing explains its alpha %g and beta %g", r.RuleID, r.Alpha, r.Beta)
	}
	if len(p.threads) > 1 {
		t := p.threads[len(p.threads)-1]
		return Errorf(EINVALID, "rule %s: its event #%d (event_id %d) creates another rule, whose history no \"merged candidate\" event merges into it",
			r.RuleID, t.createdAt, t.createdID)
	}
	m := p.threads[0]
	if r.Alpha != m.Alpha || r.Beta != m.Beta || r.Reinforcements != m.Reinforcements || r.CounterExamples != m.CounterExamples {
		return Errorf(EINVALID, "rule %s has alpha %g, beta %g, %d reinforcements and %d counterexamples, but its %d events, replayed from its prior, give alpha %g, beta %g, %d and %d",
			r.RuleID, r.Alpha, r.Beta, r.Reinforcements, r.CounterExamples, p.n, m.Alpha, m.Beta, m.Reinforcements, m.CounterExamples)
	}
	if !r.FirstSeen.Equal(m.FirstSeen) || !r.LastCorrection.Equal(m.LastCorrection) {
		return Errorf(EINVALID, "rule %s was first seen %s and last corrected %s, but its %d events, replayed, give %s and %s",
			r.RuleID, stamp(r.FirstSeen), stamp(r.LastCorrection), p.n, stamp(m.FirstSeen), stamp(m.LastCorrection))
	}
	if err := p.statement(); err != nil {
		return err
	}
	if r.Status == StatusActiveEligible && m.candidate && !p.accepted {
		return Errorf(EINVALID, "rule %s is active-eligible, but it was created as a candidate and no promotion or manual_override of its history accepted it", r.RuleID)
	}
	return nil
}

// noChange is the error of an event that should leave α and β as they were.
func (p *Replay) noChange(ev Event) error {
	t := p.threads[0]
	return Errorf(EINVALID, "it changes no evidence, so it records the rule's alpha %g and beta %g as they were; it records alpha %g and beta %g",
		t.Alpha, t.Beta, ev.Alpha, ev.Beta)
}

// stamp formats a time for messages.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// article is "a" or "an" before an event type.
func article(t EventType) string {
	if len(t) > 0 && strings.ContainsRune("aeiou", rune(t[0])) {
		return "an"
	}
	return "a"
}

// statement checks the rule's statement, if any: an act named on one
// line, words of at most MaxStatedTextLength bytes (and the "…" of a cut),
// explained by an event of the history (see Replay).
func (p *Replay) statement() error {
	s := p.rule.Stated
	if s == nil {
		return nil
	}
	id := p.rule.RuleID
	if s.By == "" || len(s.By) > 200 {
		return Errorf(EINVALID, "rule %s is stated by %.200q: want the act that stated it, in at most 200 bytes", id, s.By)
	}
	if err := ValidateLine("the act that stated it", s.By); err != nil {
		return Errorf(EINVALID, "rule %s: %s", id, ErrorMessage(err))
	}
	if len(s.Text) > MaxStatedTextLength+len("…") || !utf8.ValidString(s.Text) {
		return Errorf(EINVALID, "rule %s is stated with words that are not UTF-8 text of at most %d bytes", id, MaxStatedTextLength)
	}
	if err := CheckChars("the words that stated it", s.Text, true); err != nil {
		return Errorf(EINVALID, "rule %s: %s", id, ErrorMessage(err))
	}
	if s.At.IsZero() || s.CounterBase < 0 {
		return Errorf(EINVALID, "rule %s is stated without a time, or after a negative number of counterexamples", id)
	}
	if !p.stated {
		return Errorf(EINVALID, "rule %s is stated (%s, %s, after %d counterexamples), but no event of its history explains it: its creation, a reinforcement, a confirmation or a manual_override at that time, with as many counterexamples recorded, that no retraction took back",
			id, s.By, stamp(s.At), s.CounterBase)
	}
	return nil
}
