package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// TestScopeIsolation: with rules scoped to two projects in two environments
// (plus wildcards), the persona, the rule listing filtered by scope and the
// why trace of one context never show another project's or environment's rules.
func TestScopeIsolation(t *testing.T) {
	e := newTestEnv(t, nil)
	type scoped struct {
		id        string
		env, proj string
	}
	rules := []scoped{
		{"iso.alpha-work", "work", "alpha"}, {"iso.alpha-home", "home", "alpha"},
		{"iso.beta-work", "work", "beta"}, {"iso.beta-home", "home", "beta"},
		{"iso.alpha-anywhere", "", "alpha"}, {"iso.work-anything", "work", ""},
		{"iso.everywhere", "", ""},
	}
	for _, r := range rules {
		mustStatus(t, e.post("/v1/rules", fmt.Sprintf(`{"rule_id":%q,"category":"tool_preference","text":"rule %s","scope":{"environment":%q,"project":%q}}`,
			r.id, r.id, r.env, r.proj)), 201)
		body := fmt.Sprintf(`{"text":"correction for %s","rule_id":%q,"scope":{"environment":%q,"project":%q}}`, r.id, r.id, r.env, r.proj)
		for range 10 {
			mustStatus(t, e.post("/v1/corrections", body), 201)
		}
	}
	// applies reports whether rule r may show in context (env, proj).
	applies := func(r scoped, env, proj string) bool {
		return (r.env == "" || r.env == env) && (r.proj == "" || r.proj == proj)
	}
	for _, env := range []string{"work", "home", ""} {
		for _, proj := range []string{"alpha", "beta", ""} {
			q := fmt.Sprintf("environment=%s&project=%s", env, proj)
			var want []string
			for _, r := range rules {
				if applies(r, env, proj) {
					want = append(want, r.id)
				}
			}
			var snap engine.Snapshot
			e.get("/v1/persona?"+q).json(t, &snap)
			var gotPersona []string
			for _, r := range snap.Rules {
				if strings.HasPrefix(r.RuleID, "iso.") {
					gotPersona = append(gotPersona, r.RuleID)
				}
			}
			var list RuleList
			e.get("/v1/rules?"+q).json(t, &list)
			var gotList []string
			for _, r := range list.Rules {
				if strings.HasPrefix(r.RuleID, "iso.") {
					gotList = append(gotList, r.RuleID)
				}
				if r.Scope.Project != "" && r.Scope.Project != proj || r.Scope.Environment != "" && r.Scope.Environment != env {
					t.Errorf("%s: listing shows %s scoped %s", q, r.RuleID, r.Scope)
				}
			}
			var why WhyScope
			e.get("/v1/why?"+q).json(t, &why)
			var gotWhy []string
			for _, id := range why.Winners {
				if strings.HasPrefix(id, "iso.") {
					gotWhy = append(gotWhy, id)
				}
			}
			for name, got := range map[string][]string{"persona": gotPersona, "rules": gotList, "why": gotWhy} {
				slices.Sort(got)
				w := slices.Clone(want)
				slices.Sort(w)
				if !slices.Equal(got, w) {
					t.Errorf("%s %s: got %v, want %v", name, q, got, w)
				}
			}
			if !strings.Contains(snap.Prompt, "iso.everywhere") {
				t.Errorf("%s: the prompt misses the wildcard rule", q)
			}
			for _, r := range rules {
				if !applies(r, env, proj) && strings.Contains(snap.Prompt, "["+r.id+"]") {
					t.Errorf("%s: the prompt shows %s", q, r.id)
				}
			}
		}
	}
}
