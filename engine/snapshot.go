package engine

import (
	"sort"
	"time"
)

// SnapshotRequest asks for the persona of one context.
type SnapshotRequest struct {
	Scope          Scope
	Now            time.Time
	Max            int  // 0 means cfg.MaxRules
	IncludeDormant bool // also consider stale-weak and dormant rules
	Trace          bool // fill Snapshot.Decisions with every rule's outcome
}

// SnapshotRule is one injected rule.
type SnapshotRule struct {
	RuleID         string    `json:"rule_id"`
	Text           string    `json:"text"`
	Category       string    `json:"category"`
	Severity       Severity  `json:"severity"`
	Topic          string    `json:"topic,omitempty"`
	Scope          Scope     `json:"scope"`
	Confidence     float64   `json:"confidence"`
	Alpha          float64   `json:"alpha"`
	Beta           float64   `json:"beta"`
	Reinforcements int       `json:"reinforcements"`
	Specificity    float64   `json:"specificity"`
	Provisional    bool      `json:"provisional"`
	LastCorrection time.Time `json:"last_correction"`
}

// Outcomes of a rule in a snapshot's decision trace.
const (
	OutcomeIncluded    = "included"
	OutcomeTruncated   = "truncated"
	OutcomeLost        = "lost_conflict"
	OutcomeOutOfScope  = "out_of_scope"
	OutcomeInactive    = "inactive"
	OutcomeDormant     = "dormant"
	OutcomeNotEligible = "not_eligible"
)

// Decision explains what a snapshot did with one rule and why.
type Decision struct {
	RuleID  string `json:"rule_id"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
}

// Snapshot is the persona of one context: the rules to inject, what was cut,
// the conflict losers and the rendered prompt block.
type Snapshot struct {
	Scope           Scope          `json:"scope"`
	GeneratedAt     time.Time      `json:"generated_at"`
	Rules           []SnapshotRule `json:"rules"`
	Truncated       int            `json:"truncated"`
	Losers          []Loss         `json:"losers"`
	Prompt          string         `json:"prompt"`
	EstimatedTokens int            `json:"estimated_tokens"`
	Decisions       []Decision     `json:"decisions,omitempty"`
}

// BuildSnapshot selects, from rules, those that match req.Scope and are active
// (or provisional must rules), resolves conflicts within each topic, orders
// the winners by specificity, severity, last_correction and confidence (all
// descending) and cuts them to req.Max, counting what was cut. req.Scope must
// be normalised. rules is not modified.
func BuildSnapshot(rules []Rule, req SnapshotRequest, cfg Config) Snapshot {
	max := req.Max
	if max <= 0 {
		max = cfg.MaxRules
	}
	snap := Snapshot{Scope: req.Scope, GeneratedAt: req.Now.UTC(), Rules: []SnapshotRule{}, Losers: []Loss{}}
	cands := make([]Assessed, 0, len(rules))
	// decide records a rule's outcome; reason is only built when tracing.
	decide := func(id, outcome string, reason func() string) {
		if req.Trace {
			snap.Decisions = append(snap.Decisions, Decision{RuleID: id, Outcome: outcome, Reason: reason()})
		}
	}
	for i := range rules {
		r := &rules[i]
		if r.Status != StatusActiveEligible {
			decide(r.RuleID, OutcomeNotEligible, func() string { return "status is " + string(r.Status) })
			continue
		}
		if !r.Scope.Matches(req.Scope) {
			decide(r.RuleID, OutcomeOutOfScope, func() string { return "rule scope " + r.Scope.String() + " does not match " + req.Scope.String() })
			continue
		}
		a := Assess(r, cfg, req.Now)
		if a.Dormancy != DormancyNone && !req.IncludeDormant {
			decide(r.RuleID, OutcomeDormant, func() string {
				return string(a.Dormancy) + ": last correction " + r.LastCorrection.UTC().Format("2006-01-02")
			})
			continue
		}
		if !a.Active && !a.Provisional {
			decide(r.RuleID, OutcomeInactive, func() string { return inactiveReason(a) })
			continue
		}
		cands = append(cands, Assessed{Rule: r, Assessment: a, Specificity: r.Scope.Specificity()})
	}
	winners, losses := ResolveConflicts(cands)
	if losses != nil {
		snap.Losers = losses
	}
	for _, l := range losses {
		decide(l.RuleID, OutcomeLost, func() string {
			return "lost to " + l.LostTo + " on " + l.Criterion + " (" + l.LoserValue + " vs " + l.WinnerValue + ")"
		})
	}
	top, cut := topRules(winners, max)
	snap.Truncated = len(cut)
	for _, w := range cut {
		decide(w.Rule.RuleID, OutcomeTruncated, func() string { return "beyond the snapshot's maximum of " + itoa(max) + " rules" })
	}
	for _, w := range top {
		r := w.Rule
		snap.Rules = append(snap.Rules, SnapshotRule{
			RuleID: r.RuleID, Text: r.Text, Category: r.Category, Severity: r.Severity, Topic: r.Topic,
			Scope: r.Scope, Confidence: w.Assessment.ConfidenceFinal, Alpha: r.Alpha, Beta: r.Beta,
			Reinforcements: r.Reinforcements, Specificity: w.Specificity, Provisional: !w.Assessment.Active,
			LastCorrection: r.LastCorrection,
		})
		reason := "active"
		if !w.Assessment.Active {
			reason = "provisional: a must rule below its activation thresholds"
		}
		decide(r.RuleID, OutcomeIncluded, func() string { return reason })
	}
	snap.Prompt = RenderPrompt(snap)
	snap.EstimatedTokens = EstimateTokens(snap.Prompt)
	return snap
}

func inactiveReason(a Assessment) string {
	t := a.Thresholds
	if a.Evidence < t.NMin {
		return "evidence " + itoa(a.Evidence) + " is below n_min " + itoa(t.NMin)
	}
	return "confidence " + ftoa(a.ConfidenceFinal) + " is below c_min " + ftoa(t.CMin)
}

// topRules returns the best max rules in snapshot order (specificity,
// severity, recency, confidence, all descending) and the rest. It keeps a
// sorted window of max entries instead of sorting everything: a snapshot of
// 20 out of 10,000 rules compares each rule with the window's worst once.
func topRules(rules []*Assessed, max int) (top, cut []*Assessed) {
	better := func(x, y *Assessed) bool { _, xWins := compare(x, y); return xWins }
	top = make([]*Assessed, 0, min(max, len(rules))+1)
	for _, r := range rules {
		if len(top) == max && !better(r, top[len(top)-1]) {
			cut = append(cut, r)
			continue
		}
		at := sort.Search(len(top), func(j int) bool { return better(r, top[j]) })
		top = append(top, nil)
		copy(top[at+1:], top[at:])
		top[at] = r
		if len(top) > max {
			cut = append(cut, top[max])
			top = top[:max]
		}
	}
	return top, cut
}
