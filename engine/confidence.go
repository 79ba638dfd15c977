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
	ConfidenceBase  float64 `json:"confidence_base"`
	ConfidenceFinal float64 `json:"confidence"`
	DaysSinceLast   float64 `json:"days_since_last_correction"`
	Evidence        int     `json:"evidence"`
	Active          bool    `json:"active"`
	Provisional     bool    `json:"provisional"`
	// Stated is set when an explicit statement keeps the rule in force
	// (StatedInForce): Active then holds whatever the evidence says.
	Stated     bool       `json:"stated,omitempty"`
	Dormancy   Dormancy   `json:"dormancy,omitempty"`
	Thresholds Thresholds `json:"thresholds"`
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

// ConfidenceDecimals is the precision at which a confidence is compared with
// a threshold, and at which it is shown.
const ConfidenceDecimals = 4

// MeetsConfidence reports whether confidence reaches threshold once both are
// rounded to ConfidenceDecimals places. A rule whose base confidence is
// exactly a threshold (20/25 = 0.8, 5/10 = 0.5) therefore meets it right
// after its last correction, while decay has taken off less than half a
// unit of the fourth decimal, instead of dropping below it within a second.
func MeetsConfidence(confidence, threshold float64) bool {
	scale := math.Pow10(ConfidenceDecimals)
	return math.Round(confidence*scale) >= math.Round(threshold*scale)
}

// Assess derives a rule's confidence and activation at now under cfg.
// A rule is active when its status is active-eligible, its evidence n
// (reinforcements + counterexamples, not the prior) is at least N_min and its
// confidence_final meets C_min (MeetsConfidence: compared at 4 decimals). The
// floor counts evidence, not alpha+beta: with the prior included, the prior
// alone (2+5) would pass a floor of 5. With the default config and prior 2/5, a rule activates
// after 10 reinforcements (default categories), 6 (tool_preference,
// code_style, communication_style) or 18 (security_policy); a must rule is
// provisional from 3.
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
	a.Active = eligible && a.Evidence >= t.NMin && MeetsConfidence(a.ConfidenceFinal, t.CMin)
	a.Provisional = eligible && !a.Active && r.Severity == SeverityMust &&
		a.Evidence >= cfg.ProvisionalNMin && MeetsConfidence(a.ConfidenceFinal, cfg.ProvisionalCMin)
	switch {
	case eligible && StatedInForce(r, cfg):
		// What the user stated stays in force until contradicted: it
		// neither decays out nor waits for evidence.
		a.Stated, a.Active, a.Provisional = true, true, false
	case a.DaysSinceLast > cfg.DormantDays:
		a.Dormancy = DormancyDormant
	case a.DaysSinceLast > cfg.StaleWeakDays && a.Evidence < cfg.StaleWeakNMax:
		a.Dormancy = DormancyStaleWeak
	}
	return a
}
