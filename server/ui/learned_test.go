package ui_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/server"
)

// The Learned page lists an explicit correction with its rule and a
// Retract button; retracting it from the page takes the evidence back and
// the page then marks it retracted, with no button. The rule page shows the
// statement the correction made.
func TestLearnedPageRetracts(t *testing.T) {
	e := newEnv(t, server.APIKeys{}, false)
	b := e.browser(http.DefaultClient)
	var rec struct {
		EventID int64 `json:"event_id"`
	}
	if code := b.api(http.MethodPost, "/v1/corrections", "", `{"text":"CORRECT[tool.pnpm-not-npm]: pnpm, not npm"}`, &rec); code != http.StatusCreated {
		t.Fatalf("record: %d", code)
	}
	if p := b.get("/rules/tool.pnpm-not-npm"); !strings.Contains(p.body, `data-testid="stated"`) {
		t.Errorf("the rule page does not show the statement:\n%s", p.body)
	}
	p := b.get("/learned")
	id := strconv.FormatInt(rec.EventID, 10)
	if p.status != http.StatusOK || !strings.Contains(p.body, `data-testid="learned-event" data-id="`+id+`"`) ||
		!strings.Contains(p.body, `action="/events/`+id+`/retract"`) {
		t.Fatalf("learned page %d:\n%s", p.status, p.body)
	}
	res := b.post("/events/"+id+"/retract", url.Values{"csrf": {csrf(t, p)}, "back": {"/learned"}})
	if res.status != http.StatusSeeOther || !strings.Contains(res.header.Get("Location"), "done=retracted") {
		t.Fatalf("retract: %d %s", res.status, res.header.Get("Location"))
	}
	after := b.get("/learned?done=retracted")
	if !strings.Contains(after.body, `data-testid="retracted"`) || strings.Contains(after.body, `action="/events/`+id+`/retract"`) {
		t.Errorf("after the retraction:\n%s", after.body)
	}
	if again := b.post("/events/"+id+"/retract", url.Values{"csrf": {csrf(t, p)}}); again.status != http.StatusConflict {
		t.Errorf("a second retraction: %d", again.status)
	}
}
