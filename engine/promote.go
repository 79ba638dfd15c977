package engine

import "time"

// PromoteCandidate makes a candidate active-eligible when it has earned it:
// cfg.AutoPromote is on, r is a candidate proposed from corrections (not an
// exception proposal: accepting one also changes its parent's scope, so it
// always waits for the user) and, assessed at at as if it were
// active-eligible, it passes the same evidence floor and confidence
// threshold as any other rule of its category (Assess's Active). It then sets
// r.Status to StatusActiveEligible and returns true; otherwise r is left as it
// is. An archived rule (a rejected candidate) is never promoted.
//
// The caller records the evidence first (Rule.ApplyEvidence), then calls
// PromoteCandidate with the correction's time, and stores an EventPromotion
// in the same transaction when it returns true.
func PromoteCandidate(r *Rule, cfg Config, at time.Time) bool {
	if !cfg.AutoPromote || r.Status != StatusCandidate || r.ExceptionOf != "" {
		return false
	}
	if !assessAsEligible(r, cfg, at).Active {
		return false
	}
	r.Status = StatusActiveEligible
	return true
}

// assessAsEligible assesses r at now as if its status were active-eligible:
// what its evidence and confidence alone decide.
func assessAsEligible(r *Rule, cfg Config, now time.Time) Assessment {
	c := *r
	c.Status = StatusActiveEligible
	return Assess(&c, cfg, now)
}

// NeededNever is the CorrectionsNeeded of a rule that reinforcements alone
// cannot make active: an archived rule, an exception proposal or a candidate
// while auto-promotion is off (both wait for the user's accept), or a rule
// whose threshold is out of reach within MaxCorrectionsNeeded.
const NeededNever = -1

// MaxCorrectionsNeeded bounds the search of CorrectionsNeeded.
const MaxCorrectionsNeeded = 1 << 24

// CorrectionsNeeded returns the fewest further reinforcements which, all
// recorded at now, leave r active when assessed at now (Assess's Active, not
// provisional): 0 for a rule active already, NeededNever when none will do
// (see NeededNever). A candidate counts as it would once promoted: it needs
// at least one more correction, because promotion happens when a correction
// is recorded (PromoteCandidate), even if its evidence passes already. A
// dormant or stale-weak rule that passes its thresholds needs one: a
// snapshot leaves it out until a correction wakes it.
//
// The count is found by assessing r with k reinforcements added
// (Rule.ApplyEvidence, then Assess) rather than by solving the threshold
// inequalities: the 4-decimal comparison and the decay are exactly Assess's.
// From k = 1 on, each reinforcement raises both the evidence and the
// confidence and resets the decay, so activity is monotone in k and a
// doubling then bisecting search finds the least k.
func CorrectionsNeeded(r *Rule, cfg Config, now time.Time) int {
	switch {
	case r.Status == StatusArchived:
		return NeededNever
	case r.Status == StatusCandidate && (!cfg.AutoPromote || r.ExceptionOf != ""):
		return NeededNever
	}
	if a := assessAsEligible(r, cfg, now); a.Active {
		if r.Status == StatusCandidate || a.Dormancy != DormancyNone {
			return 1
		}
		return 0
	}
	activeAfter := func(k int) bool { // k >= 1
		c := *r
		c.Status = StatusActiveEligible
		c.Alpha += float64(k - 1)
		c.Reinforcements += k - 1
		c.ApplyEvidence(Reinforce, now) // the k-th: last correction moves to now
		return Assess(&c, cfg, now).Active
	}
	hi := 1
	for !activeAfter(hi) {
		if hi >= MaxCorrectionsNeeded {
			return NeededNever
		}
		hi *= 2
	}
	lo := hi / 2 // not active after lo (or lo is 0, known inactive above)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if activeAfter(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
