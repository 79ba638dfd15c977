package ui_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
	"github.com/lexsona/lexsona/server/ui"
)

// The fake the page is tested against alone, and the proof that it has
// every use case the page declares.
var _ ui.Memory = (*servertest.Memory)(nil)

// newPage serves the review page alone (no API, none of the server's
// middleware) over mem, the default tenant's memory; keys are the keys the
// login form accepts (none: an open page). tls serves over HTTPS. Its
// pages, forms, sessions and CSRF tokens are the real ones; only the use
// cases are fakes.
func newPage(t *testing.T, mem *servertest.Memory, keys []ui.Key, tls bool) *env {
	t.Helper()
	if mem.NowFn == nil {
		mem.NowFn = func() time.Time { return testNow }
	}
	page := ui.New(ui.Config{Memory: mem, Keys: keys, Logger: discard(), Now: func() time.Time { return testNow }})
	ts := httptest.NewUnstartedServer(page)
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	return &env{t: t, url: ts.URL, ts: ts}
}

// withRules makes mem answer for rules as a memory holding them does: the
// list (all of them, whatever the query), each rule by id (ENOTFOUND for
// another), a creation receipt each, the default configuration; it
// records the ids archived and edited in changed.
func withRules(mem *servertest.Memory, changed *[]string, rules ...engine.Rule) *servertest.Memory {
	cfg := engine.DefaultConfig()
	view := func(r engine.Rule) engine.RuleView { return engine.View(r, cfg, testNow) }
	find := func(id string) (engine.RuleView, error) {
		for _, r := range rules {
			if r.RuleID == id {
				return view(r), nil
			}
		}
		return engine.RuleView{}, engine.Errorf(engine.ENOTFOUND, "rule %s not found", id)
	}
	mem.ListRulesFn = func(context.Context, memory.RulesQuery) (memory.RuleList, error) {
		var out memory.RuleList
		for _, r := range rules {
			out.Rules = append(out.Rules, view(r))
		}
		return out, nil
	}
	mem.GetRuleFn = func(_ context.Context, id string, _ time.Time) (engine.RuleView, error) { return find(id) }
	mem.HistoryFn = func(_ context.Context, id string, _ int64, _ int) (memory.History, error) {
		v, err := find(id)
		return memory.History{RuleID: id, Events: []engine.Event{{EventID: 1, RuleID: id, EventType: engine.EventCreation,
			Alpha: v.Alpha, Beta: v.Beta, At: v.FirstSeen}}}, err
	}
	mem.ConfigFn = func(context.Context) (engine.Config, error) { return cfg, nil }
	mem.ArchiveRuleFn = func(_ context.Context, id string, _ time.Time) (engine.RuleView, error) {
		*changed = append(*changed, "archive "+id)
		return find(id)
	}
	mem.EditRuleFn = func(_ context.Context, id string, _ memory.RulePatch, _ time.Time) (engine.RuleView, error) {
		*changed = append(*changed, "edit "+id)
		return find(id)
	}
	return mem
}

// rule is a rule of the fake memories, defined two days before testNow.
func rule(id, text string) engine.Rule {
	return engine.Rule{RuleID: id, Category: "tool_preference", Severity: engine.SeverityShould, Text: text, Alpha: 2, Beta: 5,
		FirstSeen: testNow.Add(-48 * time.Hour), LastCorrection: testNow.Add(-48 * time.Hour), Status: engine.StatusActiveEligible, Source: engine.SourceUser}
}
