package engine

import (
	"fmt"
	"time"
)

// Retraction is what retracting one event does to its rule: the rule with
// the event's evidence taken back, and the manual_override event that
// records the retraction.
type Retraction struct {
	Rule  Rule
	Event Event
}

// Retract takes back the evidence of ev, an event of r recorded wrongly:
// one reinforcement or one counterexample less (the inverse of
// Rule.ApplyEvidence), its last correction the time of lastEvidence (the
// newest evidence that stays; zero for none, which leaves FirstSeen), and
// its statement withdrawn when ev made it. ev itself stays in the history;
// the retraction is a manual_override event at at, saying what it took
// back. Errors: EINVALID for an event of another rule; ECONFLICT (a
// conflict with what is stored) for one that carries no evidence (a
// creation, violation or edit: archive or edit the rule instead), or
// evidence the rule no longer holds.
func Retract(r Rule, ev Event, lastEvidence, at time.Time) (Retraction, error) {
	if ev.RuleID != r.RuleID {
		return Retraction{}, Errorf(EINVALID, "event %d is of rule %s, not %s", ev.EventID, ev.RuleID, r.RuleID)
	}
	switch {
	case ev.Polarity == Reinforce && r.Reinforcements > 0 && r.Alpha > 1:
		r.Alpha--
		r.Reinforcements--
	case ev.Polarity == Counter && r.CounterExamples > 0 && r.Beta > 1:
		r.Beta--
		r.CounterExamples--
	case ev.Polarity == 0:
		return Retraction{}, Errorf(ECONFLICT, "event %d is a %s and carries no evidence: only a reinforcement, counterexample or confirmation can be retracted (archive or edit the rule instead)", ev.EventID, ev.EventType)
	default:
		return Retraction{}, Errorf(ECONFLICT, "rule %s no longer holds the evidence of event %d (α %.0f, β %.0f)", r.RuleID, ev.EventID, r.Alpha, r.Beta)
	}
	if lastEvidence.IsZero() {
		lastEvidence = r.FirstSeen
	}
	r.LastCorrection = lastEvidence.UTC()
	if r.Stated != nil && r.Stated.At.Equal(ev.At) {
		r.Unstate()
	}
	return Retraction{Rule: r, Event: Event{
		RuleID: r.RuleID, EventType: EventManualOverride, Scope: ev.Scope, Alpha: r.Alpha, Beta: r.Beta, At: at,
		Detail: fmt.Sprintf("retracted event %d (a %s recorded %s): its evidence is taken back", ev.EventID,
			ev.Polarity.EventType(), ev.At.UTC().Format("2006-01-02 15:04")),
	}}, nil
}
