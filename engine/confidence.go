package engine

import (
	"math"
	"time"
)

// Dormancy marks rules whose last correction is long past. Dormant and
// stale-weak rules stay queryable but are left out of snapshots unless asked for.
type Dormancy string

// Dormancy levels.
const (
	DormancyNone      Dormancy = ""
	DormancyStaleWeak Dormancy = "stale_weak"
	DormancyDormant   Dormancy = "dormant"
)

// Assessment is a rule's derived state at one moment.
type Assessment struct {
	ConfidenceBase  float64    `json:"confidence_base"`
	ConfidenceFinal float64    `json:"confidence"`
	DaysSinceLast   float64    `json:"days_since_last_correction"`
	Evidence        int        `json:"evidence"`
	Active          bool       `json:"active"`
	Provisional     bool       `json:"provisional"`
	Dormancy        Dormancy   `json:"dormancy,omitempty"`
	Thresholds      Thresholds `json:"thresholds"`
}

// State names the assessment in one word: archived, candidate, dormant,
// stale_weak, active, provisional or inactive.
func (a Assessment) State(r *Rule) string {
	switch {
	case r.Status == StatusArchived:
		return "archived"
	case r.Status == StatusCandidate:
		return "candidate"
	case a.Dormancy != DormancyNone:
		return string(a.Dormancy)
	case a.Active:
		return "active"
	case a.Provisional:
		return "provisional"
	}
	return "inactive"
}

// ConfidenceBase is the Beta posterior mean alpha/(alpha+beta), 0 when both are 0.
func ConfidenceBase(alpha, beta float64) float64 {
	if alpha+beta <= 0 {
		return 0
	}
	return alpha / (alpha + beta)
}

// DecayFactor is exp(−days/τ); days before the last correction count as 0.
func DecayFactor(days, tauDays float64) float64 {
	if days <= 0 || tauDays <= 0 {
		return 1
	}
	return math.Exp(-days / tauDays)
}

// DaysBetween returns the (fractional) days from then to now, 0 if now is earlier.
func DaysBetween(then, now time.Time) float64 {
	d := now.Sub(then).Hours() / 24
	if d < 0 {
		return 0
	}
	return d
}

// Assess derives a rule's confidence and activation at now under cfg.
// A rule is active when its status is active-eligible, its evidence n
// (reinforcements + counterexamples, not the prior) is at least N_min and its
// confidence_final is at least C_min. The paper's "alpha+beta ≥ N_min" is not
// used: the prior alone (2+5) would always pass it.
func Assess(r *Rule, cfg Config, now time.Time) Assessment {
	t := cfg.For(r.Category)
	a := Assessment{
		ConfidenceBase: ConfidenceBase(r.Alpha, r.Beta),
		DaysSinceLast:  DaysBetween(r.LastCorrection, now),
		Evidence:       r.Evidence(),
		Thresholds:     t,
	}
	a.ConfidenceFinal = a.ConfidenceBase * DecayFactor(a.DaysSinceLast, t.TauDays)
	eligible := r.Status == StatusActiveEligible
	a.Active = eligible && a.Evidence >= t.NMin && a.ConfidenceFinal >= t.CMin
	a.Provisional = eligible && !a.Active && r.Severity == SeverityMust &&
		a.Evidence >= cfg.ProvisionalNMin && a.ConfidenceFinal >= cfg.ProvisionalCMin
	switch {
	case a.DaysSinceLast > cfg.DormantDays:
		a.Dormancy = DormancyDormant
	case a.DaysSinceLast > cfg.StaleWeakDays && a.Evidence < cfg.StaleWeakNMax:
		a.Dormancy = DormancyStaleWeak
	}
	return a
}
