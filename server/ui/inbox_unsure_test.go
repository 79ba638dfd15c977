package ui_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// The inbox says so when a suggestion's direction is unsure and asks for
// one (no direction checked, a choice required); a sure one keeps its
// direction checked.
func TestInboxAsksTheDirectionWhenUnsure(t *testing.T) {
	mem := &servertest.Memory{}
	gate := 0.8
	mem.ListConfirmationsFn = func(context.Context, string, int) (memory.ConfirmationList, error) {
		cands := []engine.Candidate{{RuleID: "tool.pnpm-not-npm", Score: 0.7}}
		return memory.ConfirmationList{Confirmations: []engine.Pending{
			{ID: 1, Text: "npm is what we use here", Polarity: engine.Reinforce, Candidates: cands, Status: engine.PendingOpen, CreatedAt: testNow, Gate: &gate, DirectionUnsure: true},
			{ID: 2, Text: "pnpm, not npm", Polarity: engine.Reinforce, Candidates: cands, Status: engine.PendingOpen, CreatedAt: testNow, Gate: &gate},
		}}, nil
	}
	e := newPage(t, mem, nil, false)
	p := e.browserDefault().get("/")
	if p.status != 200 {
		t.Fatalf("GET /: %d", p.status)
	}
	cards := strings.Split(p.body, `data-testid="pending"`)
	if len(cards) != 3 {
		t.Fatalf("%d pending cards, want 2:\n%s", len(cards)-1, p.body)
	}
	unsure, sure := cards[1], cards[2]
	if !strings.Contains(unsure, `data-testid="unsure"`) || strings.Contains(unsure, "checked> They") || strings.Count(unsure, `name="polarity"`) != 2 || !strings.Contains(unsure, "required") {
		t.Errorf("the unsure suggestion's card does not ask for the direction:\n%s", unsure)
	}
	if strings.Contains(sure, `data-testid="unsure"`) || !strings.Contains(sure, `value="1" checked`) {
		t.Errorf("the sure suggestion's card lost its direction:\n%s", sure)
	}
}
