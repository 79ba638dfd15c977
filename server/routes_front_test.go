package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// The routes' own work, over a fake memory: what a body decodes to, which
// bodies are refused before any use case runs, and what the answers look
// like (every one checked against openapi.json by runCases).

// classified is a classify answer as the memory gives one.
var classified = classifier.Result{Decision: "auto_match", RuleID: ruleSed, Score: 0.8, Polarity: engine.Reinforce,
	Candidates: []engine.Candidate{{RuleID: ruleSed, Score: 0.8}}, Model: "lexical"}

// TestClassifyRouteDecodes: a body is decoded into the text and scope
// Classify gets; a body that is not one JSON object of the request's
// fields, or not JSON at all, is refused before any use case runs.
func TestClassifyRouteDecodes(t *testing.T) {
	var got []string
	mem := &servertest.Memory{ClassifyFn: func(_ context.Context, text string, scope engine.Scope) (classifier.Result, error) {
		got = append(got, text+" "+scope.Project+" "+strings.Join(scope.ContextTags, ","))
		return classified, nil
	}}
	e, _ := newFakeEnv(t, nil, mem, nil)
	const rt = "/v1/classify"
	runCases(t, e, []routeCase{
		{"text and scope", post(rt, `{"text":"use rg","scope":{"project":"API","context_tags":["Go"]}}`), rt, 200, "", "", nil},
		{"json suffix content type", request{method: "POST", path: rt, body: `{"text":"stop using sed"}`, header: map[string]string{"Content-Type": "application/vnd.api+json; charset=utf-8"}},
			rt, 200, "", "", nil},
		{"empty body", post(rt, ""), rt, 400, "invalid", "request body is empty", nil},
		{"malformed JSON", post(rt, `{"text": }`), rt, 400, "invalid", "not valid JSON", nil},
		{"truncated JSON", post(rt, `{"text": "a`), rt, 400, "invalid", "not valid JSON", nil},
		{"trailing data", post(rt, `{"text":"a"} {}`), rt, 400, "invalid", "data after the JSON value", nil},
		{"array body", post(rt, `["a"]`), rt, 400, "invalid", "want a JSON object", nil},
		{"wrong type", post(rt, `{"text": 5}`), rt, 400, "invalid", `field "text" is a JSON number: want a string`, nil},
		{"wrong scope type", post(rt, `{"text": "a", "scope": "api"}`), rt, 400, "invalid", `field "scope"`, nil},
		{"unknown field", post(rt, `{"text": "a", "txet": "b"}`), rt, 400, "invalid", `unknown field "txet"`, nil},
		{"missing text", post(rt, `{}`), rt, 400, "invalid", `field "text" is required`, nil},
		{"null text", post(rt, `{"text": null}`), rt, 400, "invalid", `field "text" is null`, nil},
		{"null in a scope's tags", post(rt, `{"text": "use rg", "scope": {"exclude_tags": [null]}}`), rt, 400, "invalid", `field "scope.exclude_tags[0]" is null`, nil},
		{"invalid UTF-8", post(rt, "{\"text\": \"caf\xe9\"}"), rt, 400, "invalid", "not valid UTF-8", nil},
		{"NaN", post(rt, `{"text": NaN}`), rt, 400, "invalid", "not valid JSON", nil},
		{"wrong content type", request{method: "POST", path: rt, body: `{"text":"a"}`, header: map[string]string{"Content-Type": "text/html"}},
			rt, 400, "invalid", "Content-Type", nil},
		{"body over the limit", post(rt, `{"text":"`+strings.Repeat("a", 1<<20)+`"}`), rt, 413, "too_large", "1048576", nil},
	})
	// The scope reaches the memory as sent: normalising it is the memory's.
	if want := []string{"use rg API Go", "stop using sed  "}; !slices.Equal(got, want) {
		t.Errorf("Classify got %q, want %q (and no call for a refused body)", got, want)
	}
}

// TestCorrectionsRouteDecodes: a body and its Idempotency-Key header are
// decoded into the correction Record gets (the polarity parsed, the time
// read); a polarity or time that is not one, or a key given empty or
// twice, is refused before any use case runs; the status follows Record's
// answer (201 stored, 200 nothing stored or a replay).
func TestCorrectionsRouteDecodes(t *testing.T) {
	var got []engine.Correction
	answer := memory.RecordResponse{Decision: "confirm", Score: 0.5, Polarity: engine.Reinforce, PendingID: 7,
		Candidates: []engine.Candidate{{RuleID: ruleSed, Score: 0.5}}}
	replayed := false
	mem := &servertest.Memory{RecordFn: func(_ context.Context, c engine.Correction) (memory.RecordResponse, bool, error) {
		got = append(got, c)
		return answer, replayed, nil
	}}
	e, _ := newFakeEnv(t, nil, mem, nil)
	const rt = "/v1/corrections"
	withKey := func(body string, keys ...string) request {
		r := post(rt, body)
		r.header = map[string]string{}
		for _, k := range keys {
			r.header[IdempotencyHeader] = k
		}
		return r
	}
	runCases(t, e, []routeCase{
		{"counterexample", post(rt, `{"text":"sed is fine here","rule_id":"`+ruleSed+`","polarity":-1,"scope":{"context_tags":["migration"]}}`), rt, 201, "", "", nil},
		{"reinforcement", post(rt, `{"text":"use rg","polarity":1}`), rt, 201, "", "", nil},
		{"instruction", post(rt, `{"text":"别用 grep","instruction":"Use rg, not grep"}`), rt, 201, "", "", nil},
		{"backfill, frame, output and key", withKey(`{"text":"use rg","at":"2026-01-01T10:00:00+01:00","frame_id":"f-1","agent_output":"grep -r x"}`, " k-1 "), rt, 201, "", "", nil},
		{"polarity 0", post(rt, `{"text":"x","polarity":0}`), rt, 400, "invalid", "polarity 0: want 1 (reinforcement) or -1 (counterexample)", nil},
		{"polarity 2", post(rt, `{"text":"x","polarity":2}`), rt, 400, "invalid", "polarity 2: want 1 (reinforcement) or -1 (counterexample)", nil},
		{"polarity 1.5", post(rt, `{"text":"x","polarity":1.5}`), rt, 400, "invalid", `field "polarity"`, nil},
		{"polarity string", post(rt, `{"text":"x","polarity":"1"}`), rt, 400, "invalid", `field "polarity"`, nil},
		{"huge polarity", post(rt, `{"text":"x","polarity":1e400}`), rt, 400, "invalid", "polarity", nil},
		{"bad time", post(rt, `{"text":"x","at":"yesterday"}`), rt, 400, "invalid", "RFC 3339", nil},
		{"empty time", post(rt, `{"text":"x","at":""}`), rt, 400, "invalid", `field "at" = "" is not an RFC 3339 time`, nil},
		{"null time", post(rt, `{"text":"x","at":null}`), rt, 400, "invalid", `field "at" is null`, nil},
		{"empty text", post(rt, `{"text":""}`), rt, 400, "invalid", "required", nil},
		{"empty idempotency key", withKey(`{"text":"x"}`, " "), rt, 400, "invalid", "Idempotency-Key header is empty", nil},
	})
	want := []engine.Correction{
		{UserText: "sed is fine here", RuleID: ruleSed, Polarity: engine.Counter, Scope: engine.Scope{ContextTags: []string{"migration"}}},
		{UserText: "use rg", Polarity: engine.Reinforce},
		{UserText: "别用 grep", Instruction: "Use rg, not grep"},
		{UserText: "use rg", FrameID: "f-1", AgentOutput: "grep -r x", IdempotencyKey: "k-1", At: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)},
	}
	if len(got) != len(want) {
		t.Fatalf("Record got %d corrections, want %d (and none for a refused body): %+v", len(got), len(want), got)
	}
	for i := range want {
		g := got[i]
		if g.UserText != want[i].UserText || g.RuleID != want[i].RuleID || g.Polarity != want[i].Polarity || g.FrameID != want[i].FrameID ||
			g.AgentOutput != want[i].AgentOutput || g.Instruction != want[i].Instruction || g.IdempotencyKey != want[i].IdempotencyKey || !g.At.Equal(want[i].At) ||
			!slices.Equal(g.Scope.ContextTags, want[i].Scope.ContextTags) {
			t.Errorf("correction %d: %+v, want %+v", i, g, want[i])
		}
	}

	// Two keys are refused; nothing stored answers 200; a replay 200 with
	// Idempotent-Replayed.
	r := e.do(request{method: "POST", path: rt, body: `{"text":"x"}`})
	mustStatus(t, r, http.StatusCreated)
	req := post(rt, `{"text":"x"}`)
	twice := e.doWith(req, func(r *http.Request) { r.Header.Add(IdempotencyHeader, "a"); r.Header.Add(IdempotencyHeader, "b") })
	mustStatus(t, twice, http.StatusBadRequest)
	if eb := twice.errorBody(t); !strings.Contains(eb.Message, "given 2 times") {
		t.Errorf("two keys: %+v", eb)
	}
	answer = memory.RecordResponse{Decision: "new_rule", Polarity: engine.Reinforce, Candidates: []engine.Candidate{}, Reason: "nothing was recorded"}
	mustStatus(t, e.post(rt, `{"text":"x"}`), http.StatusOK)
	answer, replayed = memory.RecordResponse{Decision: "confirm", Score: 0.5, Polarity: engine.Reinforce, PendingID: 7, Candidates: []engine.Candidate{}}, true
	r = e.do(withKey(`{"text":"x"}`, "k-2"))
	mustStatus(t, r, http.StatusOK)
	checkDoc(t, http.MethodPost, rt, r)
	if r.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a replay has no Idempotent-Replayed header: %v", r.header)
	}
}

// TestConfirmationsRoutesDecode: the list's query and a confirmation's id
// and body are checked before any use case runs; what passes reaches
// ListConfirmations and Confirm as sent.
func TestConfirmationsRoutesDecode(t *testing.T) {
	var got []string
	mem := &servertest.Memory{
		ListConfirmationsFn: func(_ context.Context, status string, limit int) (memory.ConfirmationList, error) {
			got = append(got, "list "+status+" "+fmt.Sprint(limit))
			return memory.ConfirmationList{Confirmations: []engine.Pending{}}, nil
		},
		ConfirmFn: func(_ context.Context, id int64, action, ruleID string, pol engine.Polarity, _ time.Time) (memory.ConfirmResult, error) {
			got = append(got, "confirm "+fmt.Sprint(id)+" "+action+" "+ruleID+" "+fmt.Sprint(int(pol)))
			return memory.ConfirmResult{PendingID: id, Status: engine.PendingRejected}, nil
		},
	}
	e, _ := newFakeEnv(t, nil, mem, nil)
	const list, one = "/v1/confirmations", "/v1/confirmations/{id}"
	runCases(t, e, []routeCase{
		{"list", get(list), list, 200, "", "", nil},
		{"list all, one", get(list + "?status=all&limit=1"), list, 200, "", "", nil},
		{"list bad status", get(list + "?status=open"), list, 400, "invalid", "status", nil},
		{"list limit 0", get(list + "?limit=0"), list, 400, "invalid", "limit", nil},
		{"list limit huge", get(list + "?limit=99999999999999999999"), list, 400, "invalid", "limit", nil},
		{"accept", post("/v1/confirmations/12", `{"action":"accept","rule_id":" tool.use-ripgrep ","polarity":-1}`), one, 200, "", "", nil},
		{"bad id", post("/v1/confirmations/abc", `{"action":"accept"}`), one, 400, "invalid", "confirmation id", nil},
		{"zero id", post("/v1/confirmations/0", `{"action":"accept"}`), one, 400, "invalid", "confirmation id", nil},
		{"missing action", post("/v1/confirmations/12", `{}`), one, 400, "invalid", `field "action" is required`, nil},
		{"bad action", post("/v1/confirmations/12", `{"action":"maybe"}`), one, 400, "invalid", "want one of accept, reject, new", nil},
	})
	want := []string{"list pending 100", "list all 1", "confirm 12 accept tool.use-ripgrep -1"}
	if !slices.Equal(got, want) {
		t.Errorf("the use cases got %q, want %q", got, want)
	}
}

// TestPersonaRoutesDecode: GET /v1/persona's and GET /v1/why's queries are
// read into the request Persona and Why get (the scope parsed, the time,
// the bound, the format); a query that does not read is refused before
// any use case runs; format=prompt answers the snapshot's prompt as
// Markdown.
func TestPersonaRoutesDecode(t *testing.T) {
	var got []string
	mem := &servertest.Memory{
		PersonaFn: func(_ context.Context, req memory.PersonaRequest) (engine.Snapshot, error) {
			got = append(got, fmt.Sprintf("persona %s/%s/%s%v %s max=%d dormant=%v", req.Scope.Environment, req.Scope.Project,
				req.Scope.AgentFamily, req.Scope.ContextTags, req.Now.Format(time.RFC3339), req.Max, req.IncludeDormant))
			return engine.Snapshot{Scope: req.Scope, GeneratedAt: req.Now, Rules: []engine.SnapshotRule{}, Losers: []engine.Loss{},
				Prompt: "## LexSona Behavioral Rules"}, nil
		},
		WhyFn: func(_ context.Context, sc engine.Scope, now time.Time) (engine.Why, error) {
			got = append(got, fmt.Sprintf("why %s %s", sc.Environment, now.Format(time.RFC3339)))
			return engine.Why{}, nil
		},
	}
	e, _ := newFakeEnv(t, nil, mem, nil)
	const rt, why = "/v1/persona", "/v1/why"
	runCases(t, e, []routeCase{
		{"scope, time, bound", get(rt + "?environment=Work&project=api&agent_family=claude&context_tags=go,cli&context_tags=ci&now=2030-01-01T00:00:00Z&max=1&include_dormant=true"), rt, 200, "", "", nil},
		{"prompt", get(rt + "?format=prompt"), "", 200, "", "", func(t *testing.T, r response) {
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/markdown") || string(r.body) != "## LexSona Behavioral Rules" {
				t.Errorf("prompt: %q %q", ct, r.body)
			}
		}},
		{"why", get(why + "?environment=work"), "", 200, "", "", nil},
		{"bad format", get(rt + "?format=xml"), rt, 400, "invalid", "format", nil},
		{"negative max", get(rt + "?max=-1"), rt, 400, "invalid", "max", nil},
		{"huge max", get(rt + "?max=10001"), rt, 400, "invalid", "max", nil},
		{"max not a number", get(rt + "?max=ten"), rt, 400, "invalid", "max", nil},
		{"bad now", get(rt + "?now=tomorrow"), rt, 400, "invalid", "RFC 3339", nil},
		{"bad project", get(rt + "?project=API%21"), rt, 400, "invalid", "scope project", nil},
		{"bad tag", get(rt + "?context_tags=ok,%3Cscript%3E"), rt, 400, "invalid", "context tag", nil},
		{"repeated project", get(rt + "?project=a&project=b"), rt, 400, "invalid", "given 2 times", nil},
		{"bad bool", get(rt + "?include_dormant=maybe"), rt, 400, "invalid", "include_dormant", nil},
		{"invalid UTF-8", get(rt + "?project=%ff"), rt, 400, "invalid", "UTF-8", nil},
		{"why bad scope", get(why + "?environment=%20%20x%20y"), why, 400, "invalid", "scope environment", nil},
	})
	want := []string{
		"persona work/api/claude[ci cli go] 2030-01-01T00:00:00Z max=1 dormant=true",
		"persona //[] " + testNow.Format(time.RFC3339) + " max=0 dormant=false",
		"why work " + testNow.Format(time.RFC3339),
	}
	if !slices.Equal(got, want) {
		t.Errorf("the use cases got\n%q\nwant\n%q", got, want)
	}
}

// TestRulesRoutesDecode: the rule routes' queries and a PATCH body are read
// into what ListRules, GetRule, History and EditRule get; what does not
// read is refused before any use case runs.
func TestRulesRoutesDecode(t *testing.T) {
	var got []string
	view := engine.RuleView{Rule: engine.Rule{RuleID: ruleSed, Category: "tool_preference", Severity: engine.SeverityMust, Text: "No sed",
		Scope: engine.Scope{}, Alpha: 2, Beta: 5, FirstSeen: testNow, LastCorrection: testNow, Status: engine.StatusActiveEligible}, State: "inactive"}
	mem := &servertest.Memory{
		ListRulesFn: func(_ context.Context, q memory.RulesQuery) (memory.RuleList, error) {
			scope := "none"
			if q.Scope != nil {
				scope = q.Scope.Project
			}
			got = append(got, fmt.Sprintf("list %s %s %s %d %s %s scope=%s", q.Category, q.Status, q.Source, q.Limit, q.After, q.Now.Format(time.RFC3339), scope))
			return memory.RuleList{Rules: []engine.RuleView{}}, nil
		},
		GetRuleFn: func(_ context.Context, id string, now time.Time) (engine.RuleView, error) {
			got = append(got, "get "+id+" "+now.Format(time.RFC3339))
			return view, nil
		},
		HistoryFn: func(_ context.Context, id string, after int64, limit int) (memory.History, error) {
			got = append(got, fmt.Sprintf("history %s %d %d", id, after, limit))
			return memory.History{RuleID: id, Events: []engine.Event{}}, nil
		},
		EditRuleFn: func(_ context.Context, id string, p memory.RulePatch, _ time.Time) (engine.RuleView, error) {
			got = append(got, fmt.Sprintf("edit %s severity=%s topic=%q project=%s rename=%s", id, *p.Severity, *p.Topic, p.Scope.Project, *p.RenameTo))
			return view, nil
		},
	}
	e, _ := newFakeEnv(t, nil, mem, nil)
	const list, one, hist = "/v1/rules", "/v1/rules/{id}", "/v1/rules/{id}/history"
	patch := func(id, body string) request {
		return request{method: http.MethodPatch, path: "/v1/rules/" + id, body: body}
	}
	runCases(t, e, []routeCase{
		{"list", get(list + "?category=tool_preference&status=candidate&source=user&limit=7&after=a.b&now=2027-01-01T00:00:00Z&project=api"), list, 200, "", "", nil},
		{"list by default", get(list), list, 200, "", "", nil},
		{"limit 0", get(list + "?limit=0"), list, 400, "invalid", "limit", nil},
		{"limit huge", get(list + "?limit=10001"), list, 400, "invalid", "limit", nil},
		{"get", get("/v1/rules/" + ruleSed + "?now=2027-01-01T00:00:00Z"), one, 200, "", "", nil},
		{"get bad now", get("/v1/rules/" + ruleSed + "?now=x"), one, 400, "invalid", "now", nil},
		{"patch", patch(ruleSed, `{"severity":"should","topic":"","scope":{"project":"api"},"rename_to":"tool.sed-never"}`), one, 200, "", "", nil},
		{"patch unknown field", patch(ruleSed, `{"alpha":100}`), one, 400, "invalid", `unknown field "alpha"`, nil},
		{"patch malformed id", patch("BAD", `{"severity":"must"}`), one, 400, "invalid", "rule id", nil},
		{"history", get("/v1/rules/" + ruleSed + "/history?limit=2&after=7"), hist, 200, "", "", nil},
		{"history max limit", get("/v1/rules/" + ruleSed + "/history?limit=10000"), hist, 200, "", "", nil},
		{"history limit 0", get("/v1/rules/" + ruleSed + "/history?limit=0"), hist, 400, "invalid", "limit", nil},
		{"history limit negative", get("/v1/rules/" + ruleSed + "/history?limit=-5"), hist, 400, "invalid", "limit", nil},
		{"history limit huge", get("/v1/rules/" + ruleSed + "/history?limit=10001"), hist, 400, "invalid", "limit", nil},
		{"history limit text", get("/v1/rules/" + ruleSed + "/history?limit=lots"), hist, 400, "invalid", "limit", nil},
		{"history after negative", get("/v1/rules/" + ruleSed + "/history?after=-1"), hist, 400, "invalid", "after", nil},
	})
	now := testNow.Format(time.RFC3339)
	want := []string{
		"list tool_preference candidate user 7 a.b 2027-01-01T00:00:00Z scope=api",
		"list    " + fmt.Sprint(DefaultRulesLimit) + "  " + now + " scope=none",
		"get " + ruleSed + " 2027-01-01T00:00:00Z",
		`edit ` + ruleSed + ` severity=should topic="" project=api rename=tool.sed-never`,
		"history " + ruleSed + " 7 2",
		"history " + ruleSed + " 0 10000",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the use cases got\n%q\nwant\n%q", got, want)
	}
}
