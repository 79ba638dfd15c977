package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// GET /v1/learned lists an explicit correction with its rule's text;
// POST /v1/events/{id}/retract takes it back (the view then says so), and
// refuses a second retraction, an unknown event and a body with fields.
func TestLearnedAndRetractRoutes(t *testing.T) {
	e := newTestEnv(t, nil)
	r := e.post("/v1/corrections", `{"text":"CORRECT[tool.pnpm-not-npm]: pnpm, not npm"}`)
	mustStatus(t, r, http.StatusCreated)
	var rec struct {
		EventID int64 `json:"event_id"`
	}
	r.json(t, &rec)
	id := strconv.FormatInt(rec.EventID, 10)
	learned := func() map[string]any {
		t.Helper()
		r := e.get("/v1/learned?since=2000-01-01T00:00:00Z")
		mustStatus(t, r, http.StatusOK)
		var m map[string]any
		if err := json.Unmarshal([]byte(r.body), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	evs, _ := learned()["events"].([]any)
	if len(evs) != 1 || evs[0].(map[string]any)["rule_text"] == "" {
		t.Fatalf("learned events %v", evs)
	}
	runCases(t, e, []routeCase{
		{"learned", get("/v1/learned?since=2000-01-01T00:00:00Z&limit=5"), "/v1/learned", 200, "", "", nil},
		{"retract", post("/v1/events/"+id+"/retract", ""), "/v1/events/{id}/retract", 200, "", "", nil},
		{"retract again", post("/v1/events/"+id+"/retract", ""), "/v1/events/{id}/retract", 409, "conflict", "retracted already", nil},
		{"retract unknown", post("/v1/events/99999/retract", ""), "/v1/events/{id}/retract", 404, "not_found", "99999", nil},
	})
	ev := learned()["events"].([]any)[0].(map[string]any)
	if ev["retracted_by"] == nil {
		t.Errorf("the learned view does not say the event was retracted: %v", ev)
	}
}

// A body of white space alone is not the empty body: it is not JSON, and
// it is refused before any use case runs.
func TestBodyOfWhiteSpaceRefused(t *testing.T) {
	mem := &servertest.Memory{}
	e, _ := newFakeEnv(t, nil, mem, nil)
	runCases(t, e, []routeCase{
		{"retract", post("/v1/events/1/retract", "\n"), "/v1/events/{id}/retract", 400, "invalid", "JSON", nil},
		{"accept", post("/v1/rules/tool.use-ripgrep/accept", "\n"), "/v1/rules/{id}/accept", 400, "invalid", "JSON", nil},
	})
	if len(mem.Called()) != 0 {
		t.Errorf("refused bodies reached the memory: %v", mem.Called())
	}
}

// TestLearnedRoutesDecode: GET /v1/learned's query and a retraction's id
// and body are checked before any use case runs; what passes reaches
// Learned and Retract as sent.
func TestLearnedRoutesDecode(t *testing.T) {
	var got []string
	mem := &servertest.Memory{
		LearnedFn: func(_ context.Context, since time.Time, limit int) (memory.Learned, error) {
			got = append(got, fmt.Sprint("learned ", since.Format(time.RFC3339), " ", limit))
			return memory.Learned{}, nil
		},
		RetractFn: func(_ context.Context, id int64, _ time.Time) (memory.RetractResult, error) {
			got = append(got, fmt.Sprint("retract ", id))
			return memory.RetractResult{}, nil
		},
	}
	e, _ := newFakeEnv(t, nil, mem, nil)
	runCases(t, e, []routeCase{
		{"learned", get("/v1/learned?since=2026-02-01T00:00:00Z&limit=5"), "", 200, "", "", nil},
		{"retract", post("/v1/events/42/retract", "{}"), "", 200, "", "", nil},
		{"retract bad id", post("/v1/events/x/retract", ""), "/v1/events/{id}/retract", 400, "invalid", "positive whole number", nil},
		{"retract with fields", post("/v1/events/42/retract", `{"force":true}`), "/v1/events/{id}/retract", 400, "invalid", "force", nil},
		{"learned bad since", get("/v1/learned?since=soon"), "/v1/learned", 400, "invalid", "since", nil},
		{"learned bad limit", get("/v1/learned?limit=0"), "/v1/learned", 400, "invalid", "limit", nil},
	})
	if want := []string{"learned 2026-02-01T00:00:00Z 5", "retract 42"}; !slices.Equal(got, want) {
		t.Errorf("the use cases got %q, want %q", got, want)
	}
}
