package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/server/servertest"
)

// TestPersonaAndWhyRoutes: the persona and why over LexSona's memory: a
// rule made active by corrections is in the block for its scope, out once
// dormant (TestPersonaRoutesDecode checks the routes' own reading of the
// query over a fake).
func TestPersonaAndWhyRoutes(t *testing.T) {
	e := newTestEnv(t, nil)
	// Make the sed rule active for project api: tool_preference needs n ≥ 3 and c ≥ 0.6.
	for range 10 {
		mustStatus(t, e.post("/v1/corrections", `{"text":"`+textAuto+`","rule_id":"`+ruleSed+`","scope":{"project":"api"}}`), 201)
	}
	const rt, why = "/v1/persona", "/v1/why"
	hasRule := func(want bool) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			if got := strings.Contains(string(r.body), ruleSed); got != want {
				t.Errorf("persona has %s: %v, want %v: %s", ruleSed, got, want, r.body)
			}
		}
	}
	runCases(t, e, []routeCase{
		{"json", get(rt + "?project=api"), rt, 200, "", "", hasRule(true)},
		{"prompt", get(rt + "?project=api&format=prompt"), rt, 200, "", "", func(t *testing.T, r response) {
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.HasPrefix(string(r.body), "## LexSona Behavioral Rules") || !strings.Contains(string(r.body), ruleSed) {
				t.Errorf("prompt %q", r.body)
			}
		}},
		{"tags and agent", get(rt + "?environment=work&project=api&agent_family=claude&context_tags=go,cli&context_tags=ci"), rt, 200, "", "", hasRule(true)},
		{"max", get(rt + "?max=1"), rt, 200, "", "", nil},
		{"far future is dormant", get(rt + "?now=2030-01-01T00:00:00Z"), rt, 200, "", "", hasRule(false)},
		{"include dormant", get(rt + "?now=2030-01-01T00:00:00Z&include_dormant=true"), rt, 200, "", "", nil},
		{"why", get(why + "?project=api"), why, 200, "", "", func(t *testing.T, r response) {
			var w WhyScope
			r.json(t, &w)
			if len(w.Winners) != 1 || w.Winners[0] != ruleSed || len(w.Decisions) == 0 {
				t.Errorf("why: %s", r.body)
			}
		}},
	})
}

// TestRulesRoutes: the rule routes over LexSona's memory: lists and their
// pages, filters, a rule's evidence, the edits the memory takes and
// refuses, its receipts (TestRulesRoutesDecode checks the routes' own
// reading of queries and bodies over a fake).
func TestRulesRoutes(t *testing.T) {
	e := newTestEnv(t, nil)
	const list, one, hist = "/v1/rules", "/v1/rules/{id}", "/v1/rules/{id}/history"
	patch := func(id, body string) request {
		return request{method: http.MethodPatch, path: "/v1/rules/" + id, body: body}
	}
	n := func(want int) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			var l RuleList
			r.json(t, &l)
			if len(l.Rules) != want {
				t.Errorf("%d rules, want %d", len(l.Rules), want)
			}
		}
	}
	for range 3 {
		mustStatus(t, e.post("/v1/corrections", `{"text":"`+textAuto+`","rule_id":"`+ruleSed+`"}`), 201)
	}
	var all RuleList
	e.get(list).json(t, &all)
	if len(all.Rules) < 10 {
		t.Fatalf("only %d rules", len(all.Rules))
	}
	runCases(t, e, []routeCase{
		{"list", get(list), list, 200, "", "", n(len(all.Rules))},
		{"page", get(list + "?limit=2"), list, 200, "", "", func(t *testing.T, r response) {
			var l RuleList
			r.json(t, &l)
			if len(l.Rules) != 2 || l.NextAfter != l.Rules[1].RuleID {
				t.Fatalf("page: %d rules, next_after %q", len(l.Rules), l.NextAfter)
			}
			var next RuleList
			e.get(list+"?limit=2&after="+l.NextAfter).json(t, &next)
			if len(next.Rules) != 2 || next.Rules[0].RuleID <= l.NextAfter {
				t.Errorf("next page starts at %s", next.Rules[0].RuleID)
			}
		}},
		{"category", get(list + "?category=tool_preference"), list, 200, "", "", nil},
		{"status", get(list + "?status=candidate"), list, 200, "", "", n(0)},
		{"source", get(list + "?source=registry"), list, 200, "", "", n(len(all.Rules))},
		{"bad category", get(list + "?category=Tool%20Pref"), list, 400, "invalid", "category", nil},
		{"bad status", get(list + "?status=live"), list, 400, "invalid", "status", nil},
		{"bad source", get(list + "?source=internet"), list, 400, "invalid", "source", nil},
		{"get", get("/v1/rules/" + ruleSed), one, 200, "", "", func(t *testing.T, r response) {
			var v engine.RuleView
			r.json(t, &v)
			if v.RuleID != ruleSed || v.Reinforcements != 3 || v.Alpha != 5 || v.State != "provisional" {
				t.Errorf("rule: %s", r.body)
			}
		}},
		{"get unknown", get("/v1/rules/tool.unknown"), one, 404, "not_found", "tool.unknown", nil},
		{"get malformed", get("/v1/rules/Not%20An%20Id"), one, 400, "invalid", "malformed rule id", nil},
		{"patch", patch(ruleSed, `{"severity":"should","topic":"","scope":{"project":"api"}}`), one, 200, "", "", func(t *testing.T, r response) {
			var v engine.RuleView
			r.json(t, &v)
			if v.Severity != "should" || v.Topic != "" || v.Scope.Project != "api" || v.Alpha != 5 {
				t.Errorf("patched: %s", r.body)
			}
		}},
		{"patch nothing", patch(ruleSed, `{}`), one, 400, "invalid", "nothing to update", nil},
		{"patch bad severity", patch(ruleSed, `{"severity":"critical"}`), one, 400, "invalid", "severity", nil},
		{"patch bad status", patch(ruleSed, `{"status":"gone"}`), one, 400, "invalid", "status", nil},
		{"patch empty text", patch(ruleSed, `{"text":"  "}`), one, 400, "invalid", "text", nil},
		{"patch bad scope", patch(ruleSed, `{"scope":{"project":"a b"}}`), one, 400, "invalid", "scope project", nil},
		{"patch unknown rule", patch("tool.unknown", `{"severity":"must"}`), one, 404, "not_found", "tool.unknown", nil},
		{"history", get("/v1/rules/" + ruleSed + "/history"), hist, 200, "", "", func(t *testing.T, r response) {
			var h History
			r.json(t, &h)
			// creation, 3 reinforcements, the patch's manual override
			if len(h.Events) != 5 || h.Events[0].EventType != engine.EventCreation || h.NextAfter != 0 {
				t.Errorf("history: %s", r.body)
			}
			for i := 1; i < len(h.Events); i++ {
				if h.Events[i].EventID <= h.Events[i-1].EventID {
					t.Errorf("events not oldest first")
				}
			}
		}},
		{"history page", get("/v1/rules/" + ruleSed + "/history?limit=2&after=0"), hist, 200, "", "", func(t *testing.T, r response) {
			var h History
			r.json(t, &h)
			if len(h.Events) != 2 || h.NextAfter != h.Events[1].EventID {
				t.Errorf("page: %s", r.body)
			}
		}},
		{"history unknown", get("/v1/rules/tool.unknown/history"), hist, 404, "not_found", "tool.unknown", nil},
	})
}

// TestHealthAndFallbacks: the probes, /metrics (with the memory's rule
// counts), the answers for routes and methods that do not exist, and the
// request id, over a fake memory.
func TestHealthAndFallbacks(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{CountRuleStatesFn: func(context.Context, time.Time) (map[string]int, error) {
		return map[string]int{"active": 3, "candidate": 1}, nil
	}}, nil)
	runCases(t, e, []routeCase{
		{"healthz", get("/healthz"), "/healthz", 200, "", "", nil},
		{"readyz", get("/readyz"), "/readyz", 200, "", "", nil},
		{"metrics", get("/metrics"), "/metrics", 200, "", "", func(t *testing.T, r response) {
			if !strings.Contains(string(r.body), `lexsona_rules{state="active"} 3`) {
				t.Errorf("no rule counts in /metrics")
			}
		}},
		{"unknown route", get("/v2/nothing"), "", 404, "not_found", "no such endpoint", nil},
		{"unknown v1 route", get("/v1/nothing"), "", 404, "not_found", "no such endpoint", nil},
		{"wrong method", request{method: http.MethodDelete, path: "/v1/rules/" + ruleSed}, "", 405, "method_not_allowed", "not allowed", nil},
		{"GET on a POST route", get("/v1/classify"), "", 405, "method_not_allowed", "not allowed", nil},
	})
	if r := e.get("/healthz"); r.header.Get("X-Request-Id") == "" {
		t.Errorf("no X-Request-Id")
	}
	r := e.do(request{method: "GET", path: "/healthz", header: map[string]string{"X-Request-Id": "client-id_1.2"}})
	if got := r.header.Get("X-Request-Id"); got != "client-id_1.2" {
		t.Errorf("client request id not kept: %q", got)
	}
	r = e.do(request{method: "GET", path: "/healthz", header: map[string]string{"X-Request-Id": "bad id\twith spaces"}})
	if got := r.header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
		t.Errorf("bad client request id kept: %q", got)
	}
}

func TestJSONNotHTMLEscaped(t *testing.T) {
	e := newTestEnv(t, nil)
	r := e.post("/v1/classify", `{"text":"CORRECT[tool.use-ripgrep]: use <rg> & not grep"}`)
	mustStatus(t, r, 200)
	r = e.get("/v1/rules/" + ruleSed)
	if strings.Contains(string(r.body), `\u0026`) || strings.Contains(string(r.body), `\u003c`) {
		t.Errorf("HTML-escaped JSON: %s", r.body)
	}
	r = e.post("/v1/corrections", `{"text":"<b>stop</b> & editing files with sed"}`)
	mustStatus(t, r, 201)
	r = e.get("/v1/rules/" + ruleSed + "/history")
	if !strings.Contains(string(r.body), `<b>stop</b> & editing`) {
		t.Errorf("history: %s", r.body)
	}
}

// TestHeadProbes: HEAD /healthz and /readyz answer GET's status and headers
// without a body, on the real server.
func TestHeadProbes(t *testing.T) {
	_, base := startFake(t, nil, &servertest.Memory{})
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Head(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) != 0 || resp.Header.Get("Content-Type") == "" {
			t.Errorf("HEAD %s: %d, %d body bytes, Content-Type %q", path, resp.StatusCode, len(body), resp.Header.Get("Content-Type"))
		}
	}
}
