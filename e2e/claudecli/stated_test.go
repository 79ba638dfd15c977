package claudecli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// pnpmSuggestion is an ordinary prompt (no CORRECT[], no remember:) that
// passes the correction gate and whose best match, with the lexical
// embedder, is the pnpm rule in the confirm band: an inbox suggestion.
const pnpmSuggestion = "no, don't run npm install here, we use pnpm in this repo"

// pendingFor is the id of the open inbox suggestion whose text is text and
// whose top candidate is rule (`lexsona --json confirm`); 0 when none.
func pendingFor(t *testing.T, sb *Sandbox, text, rule string) int64 {
	t.Helper()
	out := sb.Lexsona(t, "--json", "confirm")
	var list struct {
		Confirmations []struct {
			ID         int64  `json:"id"`
			Text       string `json:"text"`
			Candidates []struct {
				RuleID string `json:"rule_id"`
			} `json:"candidates"`
		} `json:"confirmations"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("lexsona --json confirm: %v\n%s", err, out)
	}
	for _, p := range list.Confirmations {
		if p.Text == text && len(p.Candidates) > 0 && p.Candidates[0].RuleID == rule {
			return p.ID
		}
	}
	return 0
}

// TestStatedRuleInNextPersona: one explicit act of the user's in session 1
// puts an inactive rule (tool.pnpm-not-npm, inactive on a new database) in
// force: session 2's first request carries it in the persona, marked
// "(stated by the user: DATE)" with the date of the statement `lexsona why`
// shows; session 1's first request did not carry it.
//   - correct: a CORRECT[tool.pnpm-not-npm]: prompt, command hooks.
//   - accepted-suggestion: an ordinary prompt, delivered to a running
//     service (--http), becomes an inbox suggestion and no evidence; the
//     user accepts it with `lexsona confirm ID --accept` (the CLI, on the
//     service's database); session 2's persona comes from the service.
func TestStatedRuleInNextPersona(t *testing.T) {
	for _, tc := range []struct {
		name, prompt string
		http         bool
	}{
		{"correct", pnpmCorrect, false},
		{"accepted-suggestion", pnpmSuggestion, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := NewSandbox(t)
			var svc *Service
			if tc.http {
				svc = sb.StartService(t, freeAddr(t))
				install(t, sb, "--http", svc.URL)
			} else {
				install(t, sb)
			}
			ruleLine := "[" + pnpmRule + "] " + pnpmRuleText
			if e := why(t, sb, pnpmRule); e.Rule.State != "inactive" || e.Rule.Stated != nil {
				t.Fatalf("%s is %s (stated %v) on a new database, want inactive and never stated", pnpmRule, e.Rule.State, e.Rule.Stated)
			}

			c := sb.Converse(t, NewStandIn(t, Turn{Text: "Understood."}))
			c.Say(tc.prompt)
			sess1 := c.End()
			if sess1.Err != nil {
				t.Fatalf("session 1: claude: %v\nstderr: %s", sess1.Err, sess1.Stderr)
			}
			if strings.Contains(firstRequestText(t, sess1), ruleLine) {
				t.Errorf("session 1's first request already lists %s in the persona", pnpmRule)
			}
			waitDelivered(t, sb)
			if tc.http {
				id := pendingFor(t, sb, tc.prompt, pnpmRule)
				if id == 0 {
					t.Fatalf("no inbox suggestion for %q with %s on top:\n%s", tc.prompt, pnpmRule, sb.Lexsona(t, "confirm"))
				}
				if n := reinforcements(t, sb, pnpmRule, ""); n != 0 {
					t.Errorf("the suggestion alone put %d reinforcements on the rule, want none", n)
				}
				sb.Lexsona(t, "confirm", strconv.FormatInt(id, 10), "--accept")
			}
			e := why(t, sb, pnpmRule)
			if e.Rule.Stated == nil || e.Rule.State != "active" {
				t.Fatalf("after session 1 %s is %s, stated %v; want active and stated", pnpmRule, e.Rule.State, e.Rule.Stated)
			}
			t.Logf("stated: %s", e.Rule.Stated.By)

			personas := 0
			if svc != nil {
				personas = len(svc.Requests("GET", "/v1/persona"))
			}
			sess2 := sb.Claude(t, NewStandIn(t, Turn{Text: "Noted."}), "What should I keep in mind in this project?")
			if sess2.Err != nil {
				t.Fatalf("session 2: claude -p: %v\nstderr: %s", sess2.Err, sess2.Stderr)
			}
			want := ruleLine + " (stated by the user: " + e.Rule.Stated.At.UTC().Format("2006-01-02") + ")"
			if first := firstRequestText(t, sess2); !strings.Contains(first, want) {
				t.Errorf("session 2's first request lacks %q; its messages:\n%s", want, sess2.Main[0].Msg.MessagesText())
			}
			if svc != nil && len(svc.Requests("GET", "/v1/persona"))-personas != 1 {
				t.Errorf("session 2's persona was not asked from the service")
			}
		})
	}
}
