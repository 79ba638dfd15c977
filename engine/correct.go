package engine

import "fmt"

// Outcome is what one correction does to its rule, decided without the
// store: the rule after the evidence (and after its promotion, if any), the
// correction's event, the promotion of a candidate that the evidence carries
// past its category's evidence floor and confidence threshold, the exception
// rule proposed when enough of the rule's counterexamples share a context
// tag, and the rule's assessment afterwards.
type Outcome struct {
	Rule  Rule
	Event Event
	// Promotion is the promotion event, when the correction made a
	// candidate active-eligible (PromoteCandidate).
	Promotion *Event
	// Exception is the exception proposed (DetectExceptionPatternCounts)
	// and ExceptionEvent its creation event; both nil when none is.
	Exception      *ExceptionProposal
	ExceptionEvent *Event
	Assessment     Assessment
}

// ExceptionState reads what an exception proposal for rule ruleID is
// decided from: per context tag, the number of its counterexamples that
// carried it (before the correction being decided), and the tags for which
// an exception was proposed or rejected before, which are not proposed
// again. Correct calls it only for a counterexample on an active-eligible
// rule; its errors are returned as they are.
type ExceptionState func(ruleID string) (counts map[string]int, proposed []string, err error)

// Correct decides what the checked correction c does to r, the rule it
// names as read in the caller's transaction, under cfg: the evidence of its
// polarity at c.At (Rule.ApplyEvidence), its event (a confirmation when
// c.Confirmation), the promotion of a candidate (PromoteCandidate) and,
// for a counterexample on an active-eligible rule, the exception proposal
// of the context tags that state reads (c's own tags are added to its
// counts). The proposal's rule is unchecked: the caller drops one whose id
// is taken or invalid. Errors: ECONFLICT for an archived rule (a conflict
// with its stored state); state's.
func Correct(r Rule, c Correction, cfg Config, state ExceptionState) (Outcome, error) {
	if r.Status == StatusArchived {
		return Outcome{}, Errorf(ECONFLICT, "rule %s is archived: restore it (status active-eligible) before recording corrections on it", r.RuleID)
	}
	r.ApplyEvidence(c.Polarity, c.At)
	var out Outcome
	if c.Stated != "" {
		if c.Polarity == Counter {
			r.Unstate()
		} else {
			r.State(c.Stated, c.UserText, c.At)
			if r.Status == StatusCandidate && r.ExceptionOf == "" {
				// Naming a candidate explicitly accepts it.
				r.Status = StatusActiveEligible
				out.Promotion = &Event{RuleID: r.RuleID, EventType: EventPromotion, Scope: c.Scope, Alpha: r.Alpha, Beta: r.Beta,
					At: c.At, Detail: "accepted from candidate by an explicit act: " + c.Stated}
			}
		}
	}
	out.Event = Event{
		RuleID: r.RuleID, EventType: c.Polarity.EventType(), UserText: c.UserText, AgentOutput: c.AgentOutput,
		FrameID: c.FrameID, Scope: c.Scope, Decision: c.Decision, Score: c.Score, Candidates: c.Candidates,
		Model: c.Model, Detail: c.Detail, Polarity: c.Polarity, Alpha: r.Alpha, Beta: r.Beta, At: c.At,
	}
	if c.Confirmation {
		out.Event.EventType = EventConfirmation
	}
	if c.Polarity == Counter && r.Status == StatusActiveEligible {
		counts, proposed, err := state(r.RuleID)
		if err != nil {
			return Outcome{}, err
		}
		skip := make(map[string]bool, len(proposed))
		for _, tag := range proposed {
			skip[tag] = true
		}
		out.Exception, out.ExceptionEvent = proposeException(&r, c, cfg, counts, skip)
	}
	if PromoteCandidate(&r, cfg, c.At) {
		a := Assess(&r, cfg, c.At)
		out.Promotion = &Event{
			RuleID: r.RuleID, EventType: EventPromotion, Scope: c.Scope, Alpha: r.Alpha, Beta: r.Beta, At: c.At,
			Detail: fmt.Sprintf("promoted from candidate: %d corrections, confidence %.4f (candidates.auto_promote)", a.Evidence, a.ConfidenceFinal),
		}
	}
	out.Rule, out.Assessment = r, Assess(&r, cfg, c.At)
	return out, nil
}

// proposeException counts c's context tags into counts and proposes the
// exception they call for, with its creation event.
func proposeException(r *Rule, c Correction, cfg Config, counts map[string]int, skip map[string]bool) (*ExceptionProposal, *Event) {
	after := make(map[string]int, len(counts)+len(c.Scope.ContextTags))
	for t, n := range counts {
		after[t] = n
	}
	for _, t := range c.Scope.ContextTags {
		after[t]++
	}
	p := DetectExceptionPatternCounts(r, after, skip, cfg, c.At)
	if p == nil {
		return nil, nil
	}
	p.Rule.Source = SourceCorrection
	return p, &Event{
		RuleID: p.Rule.RuleID, EventType: EventCreation, Scope: p.Rule.Scope, Alpha: p.Rule.Alpha, Beta: p.Rule.Beta, At: c.At,
		Detail: fmt.Sprintf("proposed as an exception to %s: %d of its counterexamples came in %s contexts", r.RuleID, p.Count, p.Tag),
	}
}
