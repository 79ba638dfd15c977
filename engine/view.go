package engine

import "time"

// RuleView is a rule as the CLI, HTTP API and MCP tools show it: its stored
// fields plus its confidence and activation at one moment.
type RuleView struct {
	Rule
	ConfidenceBase float64  `json:"confidence_base"`
	Confidence     float64  `json:"confidence"`
	Evidence       int      `json:"evidence"`
	Active         bool     `json:"active"`
	Provisional    bool     `json:"provisional"`
	State          string   `json:"state"`
	Dormancy       Dormancy `json:"dormancy,omitempty"`
	Specificity    float64  `json:"specificity"`
}

// View assesses r at now under cfg.
func View(r Rule, cfg Config, now time.Time) RuleView {
	a := Assess(&r, cfg, now)
	return RuleView{
		Rule: r, ConfidenceBase: a.ConfidenceBase, Confidence: a.ConfidenceFinal, Evidence: a.Evidence,
		Active: a.Active, Provisional: a.Provisional, State: a.State(&r), Dormancy: a.Dormancy,
		Specificity: r.Scope.Specificity(),
	}
}
