package ui

import (
	"net/http"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// states are the one-word states a rule may be in (engine.Assessment.State).
var states = []string{"active", "provisional", "inactive", "candidate", "stale_weak", "dormant", "archived"}

// severities are the rule severities, strongest first.
var severities = []string{string(engine.SeverityMust), string(engine.SeverityShould), string(engine.SeverityStyle)}

// ruleRow is one rule of the list with its distance to activation.
type ruleRow struct {
	engine.RuleView
	Needed int
}

// rulesFilter is the rules page's search form.
type rulesFilter struct {
	Q, Category, Severity, State string
	// Registry keeps the rules of that registry only (the registry page
	// links each registry's name here).
	Registry string
	Scope    scopeForm
}

// rulesPage is the rules list.
type rulesPage struct {
	Filter     rulesFilter
	Rows       []ruleRow
	Categories []string
	States     []string
	Severities []string
	More       bool // the list was cut at memory.DefaultRulesLimit
	Total      int
}

func (p *rulesPage) title() (string, string) { return "Rules", "rules" }

func (u *UI) rules(rc *reqCtx) error {
	q := rc.r.URL.Query()
	f := rulesFilter{
		Q: strings.TrimSpace(q.Get("q")), Category: strings.TrimSpace(q.Get("category")),
		Severity: q.Get("severity"), State: q.Get("state"), Registry: strings.TrimSpace(q.Get("registry")), Scope: scopeFormOf(q),
	}
	rq := memory.RulesQuery{Category: f.Category}
	if !f.Scope.empty() {
		sc, err := f.Scope.parse()
		if err != nil {
			return err
		}
		rq.Scope = &sc
	}
	list, err := rc.mem.ListRules(rc.ctx(), rq)
	if err != nil {
		return err
	}
	cfg, err := rc.mem.Config(rc.ctx())
	if err != nil {
		return err
	}
	all, err := rc.mem.ListRules(rc.ctx(), memory.RulesQuery{})
	if err != nil {
		return err
	}
	p := &rulesPage{Filter: f, States: states, Severities: severities, More: list.NextAfter != "", Total: len(all.Rules)}
	for _, r := range all.Rules {
		if !slices.Contains(p.Categories, r.Category) {
			p.Categories = append(p.Categories, r.Category)
		}
	}
	slices.Sort(p.Categories)
	now := u.now()
	for _, r := range list.Rules {
		if !f.matches(r) {
			continue
		}
		p.Rows = append(p.Rows, ruleRow{RuleView: r, Needed: engine.CorrectionsNeeded(&r.Rule, cfg, now)})
	}
	u.render(rc, http.StatusOK, "rules", p)
	return nil
}

// matches applies the filters ListRules does not: severity, state,
// registry and the text search (rule id, text, category, topic and tags, case-insensitive).
func (f rulesFilter) matches(r engine.RuleView) bool {
	if f.Severity != "" && string(r.Severity) != f.Severity {
		return false
	}
	if f.State != "" && r.State != f.State {
		return false
	}
	if f.Registry != "" && (r.Source != engine.SourceRegistry || r.Registry != f.Registry) {
		return false
	}
	if f.Q == "" {
		return true
	}
	hay := strings.ToLower(strings.Join([]string{r.RuleID, r.Text, r.Category, r.Topic, r.Scope.String()}, "\n"))
	for _, w := range strings.Fields(strings.ToLower(f.Q)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}
