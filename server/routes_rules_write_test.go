package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

const goVetRule = `{"rule_id":"tool.run-go-vet","category":"tool_preference","text":"Run go vet before saying a Go change is done","scope":{"context_tags":["go"]}}`

func TestCreateRule(t *testing.T) {
	e := newTestEnv(t, nil)
	n := e.ruleCount()
	runCases(t, e, []routeCase{
		{"bad category", post("/v1/rules", `{"rule_id":"tool.x","category":"Not A Word","text":"x"}`), "/v1/rules", 400, "invalid", "malformed category", nil},
		{"no category", post("/v1/rules", `{"rule_id":"tool.x","text":"x"}`), "/v1/rules", 400, "invalid", "category is required: one of tool_preference, communication_style, security_policy, code_style", nil},
		{"bad severity", post("/v1/rules", `{"rule_id":"tool.x","category":"tool_preference","severity":"huge","text":"x"}`), "/v1/rules", 400, "invalid", "unknown severity", nil},
		{"no text", post("/v1/rules", `{"rule_id":"tool.x","category":"tool_preference"}`), "/v1/rules", 400, "invalid", "rule text is empty", nil},
		{"bad id", post("/v1/rules", `{"rule_id":"Tool X","category":"tool_preference","text":"x"}`), "/v1/rules", 400, "invalid", "malformed rule id", nil},
		{"bad scope", post("/v1/rules", `{"rule_id":"tool.x","category":"tool_preference","text":"x","scope":{"project":"my project"}}`), "/v1/rules", 400, "invalid", "scope project", nil},
		{"unknown field", post("/v1/rules", `{"rule_id":"tool.x","category":"tool_preference","text":"x","colour":"red"}`), "/v1/rules", 400, "invalid", "colour", nil},
		{"existing id", post("/v1/rules", `{"rule_id":"`+ruleSed+`","category":"tool_preference","text":"x"}`), "/v1/rules", 409, "conflict", ruleSed, nil},
	})
	if got := e.ruleCount(); got != n {
		t.Fatalf("bad requests wrote rules: %d → %d", n, got)
	}

	r := e.post("/v1/rules", goVetRule)
	mustStatus(t, r, http.StatusCreated)
	var v engine.RuleView
	r.json(t, &v)
	if v.RuleID != "tool.run-go-vet" || v.Severity != engine.SeverityShould || v.Status != engine.StatusActiveEligible ||
		v.Source != engine.SourceUser || v.Alpha != 2 || v.Beta != 5 || !slices.Equal(v.Scope.ContextTags, []string{"go"}) {
		t.Errorf("created %+v", v)
	}
	// Its text was embedded with the rule: the next correction matches it.
	r = e.post("/v1/classify", `{"text":"run go vet before saying a Go change is done","scope":{"context_tags":["go"]}}`)
	mustStatus(t, r, http.StatusOK)
	var cl struct {
		RuleID string `json:"rule_id"`
	}
	r.json(t, &cl)
	if cl.RuleID != "tool.run-go-vet" {
		t.Errorf("classify after create: %s", r.body)
	}
	mustStatus(t, e.post("/v1/rules", goVetRule), http.StatusConflict)
}

func TestReviewCandidate(t *testing.T) {
	e := newTestEnv(t, nil)
	propose := func(text string) string {
		t.Helper()
		r := e.post("/v1/corrections", `{"text":"`+text+`"}`)
		mustStatus(t, r, http.StatusCreated)
		var res struct {
			Decision    string       `json:"decision"`
			CreatedRule *engine.Rule `json:"created_rule"`
		}
		r.json(t, &res)
		if res.Decision != "new_rule" || res.CreatedRule == nil {
			t.Fatalf("no candidate proposed: %s", r.body)
		}
		return res.CreatedRule.RuleID
	}
	accepted := propose("always answer in British spelling, colour not color")
	rejected := propose("name the Kubernetes namespaces after the team")
	// Accepted, the candidate is filed under an id of its own and stated.
	filed := ""
	runCases(t, e, []routeCase{
		{"accept", post("/v1/rules/"+accepted+"/accept", ""), "/v1/rules/{id}/accept", 200, "", "", func(t *testing.T, r response) {
			var v engine.RuleView
			r.json(t, &v)
			if v.Status != engine.StatusActiveEligible || strings.HasPrefix(v.RuleID, "proposed.") || v.Stated == nil || !v.Active {
				t.Errorf("accepted: %+v", v)
			}
			filed = v.RuleID
		}},
	})
	runCases(t, e, []routeCase{
		{"reject", post("/v1/rules/"+rejected+"/reject", "{}"), "/v1/rules/{id}/reject", 200, "", "", func(t *testing.T, r response) {
			var v engine.RuleView
			r.json(t, &v)
			if v.Status != engine.StatusArchived {
				t.Errorf("rejected: %+v", v)
			}
		}},
		{"accept again", post("/v1/rules/"+filed+"/accept", ""), "/v1/rules/{id}/accept", 409, "conflict", "is active-eligible, not a candidate: there is nothing to accept", nil},
		// Its proposed id still reaches it: the rule is no longer a candidate.
		{"accept under its old id", post("/v1/rules/"+accepted+"/accept", ""), "/v1/rules/{id}/accept", 409, "conflict", "is active-eligible, not a candidate", nil},
		{"reject again", post("/v1/rules/"+rejected+"/reject", ""), "/v1/rules/{id}/reject", 409, "conflict", "is archived, not a candidate: there is nothing to reject", nil},
		{"accept a rejected one", post("/v1/rules/"+rejected+"/accept", ""), "/v1/rules/{id}/accept", 409, "conflict", "is archived, not a candidate", nil},
		{"accept a registry rule", post("/v1/rules/"+ruleSed+"/accept", ""), "/v1/rules/{id}/accept", 409, "conflict", "is active-eligible, not a candidate", nil},
		{"unknown rule", post("/v1/rules/tool.unknown/reject", ""), "/v1/rules/{id}/reject", 404, "not_found", "tool.unknown", nil},
		{"body with fields", post("/v1/rules/"+rejected+"/accept", `{"force":true}`), "/v1/rules/{id}/accept", 400, "invalid", "force", nil},
	})
}

// TestAcceptExceptionOverHTTP: counterexamples sharing a tag propose an
// exception; PATCHing its status is refused (it would leave the original
// rule as it was), POST …/accept also excludes the tag from the original.
func TestAcceptExceptionOverHTTP(t *testing.T) {
	e := newTestEnv(t, nil)
	var exc string
	for range 3 {
		r := e.post("/v1/corrections", `{"text":"sed is fine for this migration","rule_id":"`+ruleSed+`","polarity":-1,"scope":{"context_tags":["migration"]}}`)
		mustStatus(t, r, http.StatusCreated)
		var res struct {
			Exception *engine.ExceptionProposal `json:"exception_proposal"`
		}
		r.json(t, &res)
		if res.Exception != nil {
			exc = res.Exception.Rule.RuleID
		}
	}
	if exc == "" {
		t.Fatal("three counterexamples tagged migration proposed no exception")
	}
	r := e.do(request{method: http.MethodPatch, path: "/v1/rules/" + exc, body: `{"status":"active-eligible"}`})
	if r.status != 400 || !strings.Contains(string(r.body), "POST /v1/rules/"+exc+"/accept") || !strings.Contains(string(r.body), "POST /v1/rules/"+exc+"/reject") {
		t.Errorf("PATCH status of an exception proposal: %d %s", r.status, r.body)
	}
	mustStatus(t, e.post("/v1/rules/"+exc+"/accept", ""), http.StatusOK)
	var parent engine.RuleView
	e.get("/v1/rules/"+ruleSed).json(t, &parent)
	if !slices.Contains(parent.Scope.ExcludeTags, "migration") {
		t.Errorf("accepting the exception did not exclude its tag from %s: %+v", ruleSed, parent.Scope)
	}
}

// TestRenameRuleOverHTTP: PATCH rename_to moves a rule and its receipts to
// a new id, as `lexsona rules edit --rename` does, and the old id still
// reaches the rule; an id in use is a 409, a malformed one a 400, and
// neither moves anything.
func TestRenameRuleOverHTTP(t *testing.T) {
	e := newTestEnv(t, nil)
	mustStatus(t, e.post("/v1/rules", goVetRule), http.StatusCreated)
	patch := func(id, body string) request {
		return request{method: http.MethodPatch, path: "/v1/rules/" + id, body: body}
	}
	one := "/v1/rules/{id}"
	runCases(t, e, []routeCase{
		{"id in use", patch("tool.run-go-vet", `{"rename_to":"`+ruleSed+`"}`), one, 409, "conflict", "rule " + ruleSed + " exists", nil},
		{"malformed id", patch("tool.run-go-vet", `{"rename_to":"Go Vet"}`), one, 400, "invalid", "rule id", nil},
		{"rename", patch("tool.run-go-vet", `{"rename_to":"tool.go-vet-first"}`), one, 200, "", "", func(t *testing.T, r response) {
			var v engine.RuleView
			r.json(t, &v)
			if v.RuleID != "tool.go-vet-first" || v.Text != "Run go vet before saying a Go change is done" {
				t.Errorf("renamed: %s", r.body)
			}
		}},
		{"old id", get("/v1/rules/tool.run-go-vet"), one, 200, "", "", func(t *testing.T, r response) {
			var v engine.RuleView
			r.json(t, &v)
			if v.RuleID != "tool.go-vet-first" {
				t.Errorf("the old id reached %s, want the renamed rule", v.RuleID)
			}
		}},
		{"its receipts moved", get("/v1/rules/tool.go-vet-first/history"), one + "/history", 200, "", "", func(t *testing.T, r response) {
			var h History
			r.json(t, &h)
			if len(h.Events) != 2 || h.Events[0].EventType != engine.EventCreation || h.Events[1].EventType != engine.EventManualOverride {
				t.Errorf("history after the rename: %s", r.body)
			}
		}},
	})
}
