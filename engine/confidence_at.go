package engine

import "time"

// ConfidenceAt is the confidence at now of evidence (alpha, beta) whose
// last correction was at last, decaying with τ = tauDays: the Beta
// posterior mean times exp(−days/τ), as Assess computes confidence_final.
func ConfidenceAt(alpha, beta float64, last, now time.Time, tauDays float64) float64 {
	return ConfidenceBase(alpha, beta) * DecayFactor(DaysBetween(last, now), tauDays)
}
