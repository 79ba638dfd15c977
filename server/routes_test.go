package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Texts whose decision with the lexical embedder and the test bands
// (auto 0.6, confirm 0.35) is known.
const (
	textAuto    = "stop editing files with sed"
	textConfirm = "edit files with the tool"
	textNewRule = "name the Kubernetes namespaces after the owning team"
	ruleSed     = "tool.no-sed-for-file-editing"
)

// routeCase is one request and what must come back. route is the OpenAPI
// path the answer is checked against (its status must be documented there,
// and a JSON body must match its schema).
type routeCase struct {
	name   string
	req    request
	route  string
	status int
	code   string // the error code, for statuses ≥ 400
	msg    string // a substring of the error message
	check  func(t *testing.T, r response)
}

func runCases(t *testing.T, e *testEnv, cases []routeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.req)
			mustStatus(t, r, c.status)
			if c.status >= 400 {
				eb := r.errorBody(t)
				if eb.Code != c.code {
					t.Errorf("error code %q, want %q (message %q)", eb.Code, c.code, eb.Message)
				}
				if !strings.Contains(eb.Message, c.msg) {
					t.Errorf("error message %q does not contain %q", eb.Message, c.msg)
				}
			}
			if c.route != "" {
				checkDoc(t, c.req.method, c.route, r)
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}

func post(path, body string) request { return request{method: http.MethodPost, path: path, body: body} }
func get(path string) request        { return request{method: http.MethodGet, path: path} }

func TestClassifyRoute(t *testing.T) {
	e := newTestEnv(t, nil)
	const rt = "/v1/classify"
	decision := func(want, rule string) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			var full map[string]any
			r.json(t, &full)
			if full["decision"] != want || (rule != "" && full["rule_id"] != rule) {
				t.Errorf("decision %v rule %v, want %s %s", full["decision"], full["rule_id"], want, rule)
			}
		}
	}
	runCases(t, e, []routeCase{
		{"auto match", post(rt, `{"text":"`+textAuto+`"}`), rt, 200, "", "", decision("auto_match", ruleSed)},
		{"with scope", post(rt, `{"text":"`+textAuto+`","scope":{"project":"API","context_tags":["Go"]}}`), rt, 200, "", "", decision("auto_match", ruleSed)},
		{"confirm band", post(rt, `{"text":"`+textConfirm+`"}`), rt, 200, "", "", decision("confirm", ruleSed)},
		{"new rule", post(rt, `{"text":"`+textNewRule+`"}`), rt, 200, "", "", decision("new_rule", "")},
		{"explicit", post(rt, `{"text":"CORRECT[tool.use-ripgrep]: grep again"}`), rt, 200, "", "", decision("explicit", "tool.use-ripgrep")},
		{"explicit unknown rule", post(rt, `{"text":"CORRECT[tool.unknown]: x"}`), rt, 404, "not_found", "tool.unknown", nil},
		{"explicit malformed id", post(rt, `{"text":"CORRECT[Bad Id]: x"}`), rt, 400, "invalid", "rule id", nil},
		{"whitespace text", post(rt, `{"text": "  \n\t "}`), rt, 400, "invalid", "correction text is empty", nil},
		{"no letters", post(rt, `{"text": "?!?!"}`), rt, 400, "invalid", "no letters or digits", nil},
		{"bad scope value", post(rt, `{"text": "a", "scope": {"project": "my project!"}}`), rt, 400, "invalid", "scope project", nil},
		{"SQL metacharacters", post(rt, `{"text": "'; DROP TABLE persona_rules; --", "scope": {"project": "x"}}`), rt, 200, "", "", nil},
	})
	// Nothing above wrote anything.
	if r := e.get("/v1/rules/" + ruleSed); !strings.Contains(string(r.body), `"reinforcements":0`) {
		t.Errorf("classify recorded something: %s", r.body)
	}
}

func TestCorrectionsRoute(t *testing.T) {
	e := newTestEnv(t, nil)
	const rt = "/v1/corrections"
	field := func(name string, want any) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			var m map[string]any
			r.json(t, &m)
			if fmt.Sprint(m[name]) != fmt.Sprint(want) {
				t.Errorf("%s = %v, want %v (%s)", name, m[name], want, r.body)
			}
		}
	}
	runCases(t, e, []routeCase{
		{"auto match", post(rt, `{"text":"`+textAuto+`","scope":{"project":"api"}}`), rt, 201, "", "", field("event_type", "reinforcement")},
		{"explicit rule", post(rt, `{"text":"grep again","rule_id":"tool.use-ripgrep"}`), rt, 201, "", "", field("decision", "explicit")},
		{"counterexample", post(rt, `{"text":"sed is fine in this migration","rule_id":"`+ruleSed+`","polarity":-1,"scope":{"context_tags":["migration"]}}`),
			rt, 201, "", "", field("event_type", "counterexample")},
		{"confirm band", post(rt, `{"text":"`+textConfirm+`"}`), rt, 201, "", "", field("decision", "confirm")},
		{"new rule", post(rt, `{"text":"`+textNewRule+`"}`), rt, 201, "", "", field("decision", "new_rule")},
		{"generic: nothing recorded", post(rt, `{"text":"nope, try again"}`), rt, 200, "", "", func(t *testing.T, r response) {
			var m map[string]any
			r.json(t, &m)
			if _, ok := m["created_rule"]; ok || m["event_id"] != nil || !strings.Contains(fmt.Sprint(m["reason"]), "nothing was recorded") {
				t.Errorf("generic correction: %s", r.body)
			}
		}},
		{"backfill", post(rt, `{"text":"`+textAuto+`","at":"2026-01-01T10:00:00Z"}`), rt, 201, "", "", nil},
		{"frame and agent output", post(rt, `{"text":"`+textAuto+`","frame_id":"f-1","agent_output":"sed -i s/a/b/ x.go"}`), rt, 201, "", "", nil},
		{"unknown rule", post(rt, `{"text":"x","rule_id":"tool.unknown"}`), rt, 404, "not_found", "tool.unknown", nil},
		{"malformed rule id", post(rt, `{"text":"x","rule_id":"Tool Unknown"}`), rt, 400, "invalid", "rule id", nil},
		{"long frame id", post(rt, `{"text":"`+textAuto+`","frame_id":"`+strings.Repeat("f", 300)+`"}`), rt, 400, "invalid", "frame id", nil},
		{"long idempotency key", request{method: "POST", path: rt, body: `{"text":"` + textAuto + `"}`, header: map[string]string{IdempotencyHeader: strings.Repeat("k", 300)}},
			rt, 400, "invalid", "idempotency key", nil},
	})
	// An archived rule takes no corrections.
	mustStatus(t, e.do(request{method: http.MethodPatch, path: "/v1/rules/tool.use-ripgrep", body: `{"status":"archived"}`}), 200)
	runCases(t, e, []routeCase{
		{"archived rule", post(rt, `{"text":"x","rule_id":"tool.use-ripgrep"}`), rt, 409, "conflict", "archived", nil},
	})
	// The evidence is there: 1 auto match + backfill + frame = 3 reinforcements, 1 counterexample.
	v, err := e.srv.mem.GetRule(t.Context(), ruleSed, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if v.Reinforcements != 3 || v.CounterExamples != 1 || v.Alpha != 5 || v.Beta != 6 {
		t.Errorf("rule after corrections: reinforcements %d counter %d alpha %g beta %g, want 3 1 5 6",
			v.Reinforcements, v.CounterExamples, v.Alpha, v.Beta)
	}
}

func TestConfirmationsRoutes(t *testing.T) {
	e := newTestEnv(t, nil)
	var rec struct {
		PendingID int64 `json:"pending_id"`
	}
	r := e.post("/v1/corrections", `{"text":"`+textConfirm+`","scope":{"project":"api"}}`)
	mustStatus(t, r, 201)
	r.json(t, &rec)
	r2 := e.post("/v1/corrections", `{"text":"no sed on my files"}`)
	mustStatus(t, r2, 201)
	var rec2 struct {
		PendingID int64 `json:"pending_id"`
	}
	r2.json(t, &rec2)
	if rec.PendingID == 0 || rec2.PendingID == 0 {
		t.Fatalf("no pending ids: %s / %s", r.body, r2.body)
	}
	const list, one = "/v1/confirmations", "/v1/confirmations/{id}"
	p1, p2 := fmt.Sprint("/v1/confirmations/", rec.PendingID), fmt.Sprint("/v1/confirmations/", rec2.PendingID)
	count := func(n int) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			var l ConfirmationList
			r.json(t, &l)
			if len(l.Confirmations) != n {
				t.Errorf("%d confirmations, want %d: %s", len(l.Confirmations), n, r.body)
			}
		}
	}
	runCases(t, e, []routeCase{
		{"list pending", get(list), list, 200, "", "", count(2)},
		{"list limit", get(list + "?limit=1"), list, 200, "", "", count(1)},
		{"unknown id", post("/v1/confirmations/999999", `{"action":"accept"}`), one, 404, "not_found", "999999", nil},
		{"reject with rule", post(p1, `{"action":"reject","rule_id":"tool.use-ripgrep"}`), one, 400, "invalid", "only be named when accepting", nil},
		{"accept unknown rule", post(p1, `{"action":"accept","rule_id":"tool.unknown"}`), one, 404, "not_found", "tool.unknown", nil},
		{"accept", post(p1, `{"action":"accept"}`), one, 200, "", "", nil},
		{"accept again", post(p1, `{"action":"accept"}`), one, 409, "conflict", "already resolved", nil},
		{"reject", post(p2, `{"action":"reject"}`), one, 200, "", "", nil},
		{"list pending after", get(list), list, 200, "", "", count(0)},
		{"list all", get(list + "?status=all"), list, 200, "", "", count(2)},
		{"list accepted", get(list + "?status=accepted"), list, 200, "", "", count(1)},
	})
}
