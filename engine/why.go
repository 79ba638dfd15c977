package engine

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Why explains the persona of one context rule by rule: Explain's answer.
type Why struct {
	Scope       Scope     `json:"scope"`
	GeneratedAt time.Time `json:"generated_at"`
	// Winners are the rules in the persona, in snapshot order.
	Winners []string `json:"winners"`
	Losers  []Loss   `json:"losers"`
	// Counts is the number of decisions of each outcome.
	Counts map[string]int `json:"counts"`
	// Decisions holds one decision for every rule given, ordered by outcome
	// (included, truncated, lost_conflict, inactive, dormant, candidate,
	// out_of_scope, archived), then rule id.
	Decisions []Decision `json:"decisions"`
}

// outcomeOrder is the order Why lists its decisions in.
var outcomeOrder = []string{OutcomeIncluded, OutcomeTruncated, OutcomeLost, OutcomeInactive,
	OutcomeDormant, OutcomeCandidate, OutcomeOutOfScope, OutcomeArchived}

// Explain decides what the persona of req.Scope does with every rule of
// rules (all of them: archived rules, candidates and rules scoped elsewhere
// included, as a store lists them) and why, with how many more corrections
// each needs. It is BuildSnapshot with the trace on; req.Trace is ignored and
// req.Scope is normalised first. rules is not modified.
func Explain(rules []Rule, req SnapshotRequest, cfg Config) Why {
	req.Scope = req.Scope.Normalize()
	req.Trace = true
	snap := BuildSnapshot(rules, req, cfg)
	w := Why{Scope: snap.Scope, GeneratedAt: snap.GeneratedAt, Winners: make([]string, 0, len(snap.Rules)),
		Losers: snap.Losers, Counts: map[string]int{}, Decisions: snap.Decisions}
	if w.Decisions == nil {
		w.Decisions = []Decision{}
	}
	for _, r := range snap.Rules {
		w.Winners = append(w.Winners, r.RuleID)
	}
	for _, d := range w.Decisions {
		w.Counts[d.Outcome]++
	}
	slices.SortStableFunc(w.Decisions, func(a, b Decision) int {
		if x, y := slices.Index(outcomeOrder, a.Outcome), slices.Index(outcomeOrder, b.Outcome); x != y {
			return x - y
		}
		return strings.Compare(a.RuleID, b.RuleID)
	})
	return w
}

// notEligibleDecision explains a rule that is not active-eligible: an
// archived rule, or a candidate and what it waits for.
func notEligibleDecision(r *Rule, req SnapshotRequest, cfg Config) Decision {
	d := Decision{RuleID: r.RuleID, Needed: CorrectionsNeeded(r, cfg, req.Now)}
	if r.Status != StatusCandidate {
		d.Outcome = OutcomeArchived
		d.Reason = "archived: never injected"
		if r.Source == SourceRegistry {
			d.Reason += "; its registry no longer defines it, or it was archived by hand"
		} else {
			d.Reason += " (a rejected candidate never returns)"
		}
		return d
	}
	d.Outcome = OutcomeCandidate
	t := cfg.For(r.Category)
	switch {
	case r.ExceptionOf != "":
		d.Reason = "candidate exception to " + r.ExceptionOf + ": waits for the user's accept, which also excludes tag " +
			r.ExceptionTag + " from " + r.ExceptionOf
	case !cfg.AutoPromote:
		d.Reason = "candidate: waits for the user's accept (candidates.auto_promote is off)"
	case d.Needed == 1 && assessAsEligible(r, cfg, req.Now).Active:
		d.Reason = "candidate: passes n_min " + itoa(t.NMin) + " and c_min " + gtoa(t.CMin) +
			"; its next correction promotes it"
	default:
		d.Reason = "candidate: " + NeededText(d.Needed) + " to reach n_min " + itoa(t.NMin) + " and c_min " +
			gtoa(t.CMin) + ", then it is promoted (" + numbers(r, cfg, req.Now) + ")"
	}
	if m := r.Scope.Mismatches(req.Scope); len(m) > 0 {
		d.ScopeMismatch = m
		d.Reason += "; it would not apply here: " + mismatchText(m)
	}
	return d
}

// outOfScopeDecision names every scope field of r that does not admit the
// context.
func outOfScopeDecision(r *Rule, req SnapshotRequest, cfg Config) Decision {
	m := r.Scope.Mismatches(req.Scope)
	return Decision{RuleID: r.RuleID, Outcome: OutcomeOutOfScope, ScopeMismatch: m,
		Reason: "rule scope " + r.Scope.String() + " does not admit " + req.Scope.String() + ": " + mismatchText(m),
		Needed: CorrectionsNeeded(r, cfg, req.Now)}
}

func dormantDecision(r *Rule, a Assessment, req SnapshotRequest, cfg Config) Decision {
	days := cfg.DormantDays
	if a.Dormancy == DormancyStaleWeak {
		days = cfg.StaleWeakDays
	}
	n := CorrectionsNeeded(r, cfg, req.Now)
	return Decision{RuleID: r.RuleID, Outcome: OutcomeDormant, Needed: n,
		Reason: string(a.Dormancy) + ": last correction " + r.LastCorrection.UTC().Format("2006-01-02") +
			", over " + gtoa(days) + " days ago; " + NeededText(n) + " to be active again"}
}

func inactiveDecision(r *Rule, a Assessment, req SnapshotRequest, cfg Config) Decision {
	n := CorrectionsNeeded(r, cfg, req.Now)
	return Decision{RuleID: r.RuleID, Outcome: OutcomeInactive, Needed: n,
		Reason: inactiveReason(a) + "; " + NeededText(n) + " to be active"}
}

func includedDecision(r *Rule, a Assessment, req SnapshotRequest, cfg Config) Decision {
	d := Decision{RuleID: r.RuleID, Outcome: OutcomeIncluded, Reason: "active"}
	if a.Stated {
		d.Reason = "active: stated explicitly (" + r.Stated.By + ", " + r.Stated.At.UTC().Format("2006-01-02") +
			"); in force until " + itoa(cfg.ExplicitWeight) + " counterexamples recorded since outweigh it"
	}
	if !a.Active {
		d.Needed = CorrectionsNeeded(r, cfg, req.Now)
		d.Reason = "provisional: a must rule below its activation thresholds (" + inactiveReason(a) + "); " +
			NeededText(d.Needed) + " to be active"
	}
	return d
}

// inactiveReason names every threshold a rule misses.
func inactiveReason(a Assessment) string {
	t := a.Thresholds
	var out []string
	if a.Evidence < t.NMin {
		out = append(out, "evidence "+itoa(a.Evidence)+" is below n_min "+itoa(t.NMin))
	}
	if !MeetsConfidence(a.ConfidenceFinal, t.CMin) {
		out = append(out, "confidence "+ftoa(a.ConfidenceFinal)+" is below c_min "+gtoa(t.CMin))
	}
	if len(out) == 0 {
		return "not active"
	}
	return strings.Join(out, " and ")
}

// numbers states a rule's evidence and confidence as a candidate is judged.
func numbers(r *Rule, cfg Config, now time.Time) string {
	a := assessAsEligible(r, cfg, now)
	return "evidence " + itoa(a.Evidence) + ", confidence " + ftoa(a.ConfidenceFinal)
}

// NeededText says a CorrectionsNeeded count in words.
func NeededText(n int) string {
	switch n {
	case NeededNever:
		return "no number of corrections is enough"
	case 1:
		return "1 more correction"
	}
	return itoa(n) + " more corrections"
}

func mismatchText(m []ScopeMismatch) string {
	parts := make([]string, len(m))
	for i, x := range m {
		parts[i] = x.String()
	}
	return strings.Join(parts, "; ")
}

// gtoa formats a configured number as it was set: 0.7, 730.
func gtoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
