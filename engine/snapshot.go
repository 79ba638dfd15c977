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
	// Stated is the explicit act that keeps the rule in force, when one
	// does (StatedInForce).
	Stated *Statement `json:"stated,omitempty"`
}

// Outcomes of a rule in a snapshot's decision trace.
const (
	OutcomeIncluded   = "included"
	OutcomeTruncated  = "truncated"
	OutcomeLost       = "lost_conflict"
	OutcomeOutOfScope = "out_of_scope"
	OutcomeInactive   = "inactive"
	OutcomeDormant    = "dormant"
	OutcomeCandidate  = "candidate"
	OutcomeArchived   = "archived"
)

// Decision explains what a snapshot did with one rule and why.
type Decision struct {
	RuleID  string `json:"rule_id"`
	Outcome string `json:"outcome"`
	// Reason says the outcome in words, with the numbers that decided it.
	Reason string `json:"reason"`
	// ScopeMismatch lists why the rule's scope does not admit the context
	// (out_of_scope, and a candidate that would not apply there either).
	ScopeMismatch []ScopeMismatch `json:"scope_mismatch,omitempty"`
	// LostTo and Criterion name the winner and the deciding criterion of a
	// lost conflict.
	LostTo    string `json:"lost_to,omitempty"`
	Criterion string `json:"criterion,omitempty"`
	// Needed is CorrectionsNeeded: the fewest further reinforcements, made
	// now, after which the rule is active (0 when it is; NeededNever, -1,
	// when reinforcements alone cannot make it active).
	Needed int `json:"corrections_needed"`
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
	// decide records a rule's outcome; it is only built when tracing.
	decide := func(d func() Decision) {
		if req.Trace {
			snap.Decisions = append(snap.Decisions, d())
		}
	}
	for i := range rules {
		r := &rules[i]
		if r.Status != StatusActiveEligible {
			decide(func() Decision { return notEligibleDecision(r, req, cfg) })
			continue
		}
		if !r.Scope.Matches(req.Scope) {
			decide(func() Decision { return outOfScopeDecision(r, req, cfg) })
			continue
		}
		a := Assess(r, cfg, req.Now)
		if a.Dormancy != DormancyNone && !req.IncludeDormant {
			decide(func() Decision { return dormantDecision(r, a, req, cfg) })
			continue
		}
		if !a.Active && !a.Provisional {
			decide(func() Decision { return inactiveDecision(r, a, req, cfg) })
			continue
		}
		cands = append(cands, Assessed{Rule: r, Assessment: a, Specificity: r.Scope.Specificity()})
	}
	winners, losses := ResolveConflicts(cands)
	if losses != nil {
		snap.Losers = losses
	}
	for _, l := range losses {
		decide(func() Decision {
			return Decision{RuleID: l.RuleID, Outcome: OutcomeLost, LostTo: l.LostTo, Criterion: l.Criterion,
				Reason: "lost to " + l.LostTo + " on " + l.Criterion + " (" + l.LoserValue + " vs " + l.WinnerValue + ")"}
		})
	}
	top, cut := topRules(winners, max)
	snap.Truncated = len(cut)
	for _, w := range cut {
		decide(func() Decision {
			return Decision{RuleID: w.Rule.RuleID, Outcome: OutcomeTruncated, Reason: "beyond the snapshot's maximum of " + itoa(max) + " rules"}
		})
	}
	for _, w := range top {
		r := w.Rule
		sr := SnapshotRule{
			RuleID: r.RuleID, Text: r.Text, Category: r.Category, Severity: r.Severity, Topic: r.Topic,
			Scope: r.Scope, Confidence: w.Assessment.ConfidenceFinal, Alpha: r.Alpha, Beta: r.Beta,
			Reinforcements: r.Reinforcements, Specificity: w.Specificity, Provisional: !w.Assessment.Active,
			LastCorrection: r.LastCorrection,
		}
		if w.Assessment.Stated {
			sr.Stated = r.Stated
		}
		snap.Rules = append(snap.Rules, sr)
		decide(func() Decision { return includedDecision(r, w.Assessment, req, cfg) })
	}
	snap.Prompt = RenderPrompt(snap)
	snap.EstimatedTokens = EstimateTokens(snap.Prompt)
	return snap
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
