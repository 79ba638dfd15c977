package engine

import "time"

// Complete fills in what a new rule leaves unset: the prior of cfg when α
// and β are both 0, at for a zero first_seen, first_seen for a zero
// last_correction, the active-eligible status and the user source. The
// fields it sets are the ones NewRule sets; a rule made by NewRule is left
// as it is.
func (r *Rule) Complete(cfg Config, at time.Time) {
	if r.Alpha == 0 && r.Beta == 0 {
		r.Alpha, r.Beta = cfg.AlphaPrior, cfg.BetaPrior
	}
	if r.FirstSeen.IsZero() {
		r.FirstSeen = at.UTC()
	}
	if r.LastCorrection.IsZero() {
		r.LastCorrection = r.FirstSeen
	}
	if r.Status == "" {
		r.Status = StatusActiveEligible
	}
	if r.Source == "" {
		r.Source = SourceUser
	}
}

// Known reports whether t is one of the event types.
func (t EventType) Known() bool {
	switch t {
	case EventCreation, EventReinforcement, EventCounterexample, EventManualOverride,
		EventConfirmation, EventPromotion, EventViolation:
		return true
	}
	return false
}

// Polarity returns the polarity an event of type t carries: 1 for a
// reinforcement, −1 for a counterexample, own for a confirmation (which
// confirms evidence of either side), none for any other. Errors: EINVALID
// for an unknown type, or a confirmation whose own polarity is not 1 or −1.
func (t EventType) Polarity(own Polarity) (Polarity, error) {
	switch t {
	case EventReinforcement:
		return Reinforce, nil
	case EventCounterexample:
		return Counter, nil
	case EventConfirmation:
		if own != Reinforce && own != Counter {
			return 0, Errorf(EINVALID, "a confirmation has the polarity 1 or -1, not %d", own)
		}
		return own, nil
	}
	if !t.Known() {
		return 0, Errorf(EINVALID, "unknown event type %.64q", t)
	}
	return 0, nil
}
