package claudecli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/hooks"
)

// settingsHooks are the hooks of a settings file, by event: the type, the
// command or URL of each hook of each group.
func settingsHooks(t *testing.T, path string) map[string][]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string][]map[string]any{}
	for event, groups := range s.Hooks {
		for _, g := range groups {
			out[event] = append(out[event], g.Hooks...)
		}
	}
	return out
}

// TestInstallKinds: both kinds of `lexsona hooks install claude-code --dir
// P`, driven through Claude Code with the sed rule active.
//   - command: no service answers (LEXSONA_ADDR names a closed port), so
//     every hook is a command hook running this lexsona by its absolute
//     path; the persona is in the first request.
//   - http: with --http at a `lexsona serve` on the same database,
//     SessionStart and UserPromptSubmit stay command hooks naming the
//     service (--server), PreToolUse is an HTTP hook to its route; the
//     persona in the first request is the one the service answered
//     (GET /v1/persona in its log), and the agent's `sed -i` call is denied
//     by the service: the next request carries the call's tool_result,
//     is_error, with the rule's text, and the file is untouched.
func TestInstallKinds(t *testing.T) {
	for _, kind := range []string{"command", "http"} {
		t.Run(kind, func(t *testing.T) {
			sb := NewSandbox(t)
			sb.WriteFile(t, "fruit.txt", "apple\n")
			makeRuleActive(t, sb, sedRule)
			var svc *Service
			var inst Installed
			if kind == "http" {
				svc = sb.StartService(t, freeAddr(t))
				inst = install(t, sb, "--http", svc.URL)
			} else {
				inst = install(t, sb)
			}
			if inst.HTTP != (kind == "http") || !strings.Contains(inst.Command, sb.LexsonaBin) {
				t.Fatalf("install reported %+v, want http=%v and this lexsona's path in the command", inst, kind == "http")
			}
			got := settingsHooks(t, inst.Path)
			for _, event := range []string{"SessionStart", "UserPromptSubmit"} {
				if len(got[event]) != 1 || got[event][0]["type"] != "command" {
					t.Fatalf("%s hooks %v, want one command hook", event, got[event])
				}
				if cmd, _ := got[event][0]["command"].(string); kind == "http" && !strings.Contains(cmd, "--server "+svc.URL) {
					t.Errorf("%s command %q does not name the service %s", event, cmd, svc.URL)
				}
			}
			wantPre := "command"
			if kind == "http" {
				wantPre = "http"
			}
			if pre := got["PreToolUse"]; len(pre) != 1 || pre[0]["type"] != wantPre {
				t.Fatalf("PreToolUse hooks %v, want one %s hook", pre, wantPre)
			}

			personas := 0 // install asks the service's /v1/persona whether it wants a key
			if svc != nil {
				personas = len(svc.Requests("GET", "/v1/persona"))
			}
			s := NewStandIn(t, sedScript()...)
			sess := sb.Claude(t, s, "Replace apple with banana in fruit.txt")
			if sess.Err != nil {
				t.Fatalf("claude -p: %v\nstderr: %s", sess.Err, sess.Stderr)
			}
			first := firstRequestText(t, sess)
			for _, want := range []string{"LexSona Behavioral Rules", "[" + sedRule + "] " + sedRuleText} {
				if !strings.Contains(first, want) {
					t.Errorf("the first request lacks %q; its messages:\n%s", want, sess.Main[0].Msg.MessagesText())
				}
			}
			if kind == "command" {
				return // the command kind's deny: TestPreToolUseDenyReachesModel
			}

			if n := len(svc.Requests("GET", "/v1/persona")) - personas; n != 1 {
				t.Errorf("the service answered %d persona requests during the session, want the SessionStart hook's 1:\n%s", n, svc.log.String())
			}
			if len(sess.Main) != 2 || s.Left() != 0 {
				t.Fatalf("%d requests of the agent loop with %d turns unanswered; want 2 and 0", len(sess.Main), s.Left())
			}
			results := sess.Main[1].Msg.ToolResults()
			if len(results) != 1 || !results[0].IsError || !strings.Contains(results[0].Text, sedRuleText) {
				t.Errorf("tool results %+v, want one is_error result with the rule's text", results)
			}
			if len(sess.DebugLines("HTTP hook POST to "+svc.URL+hooks.HTTPRoute)) != 1 {
				t.Errorf("the debug log has no one HTTP hook POST to the service's route:\n%s", sess.hookLog())
			}
			if got := sb.ReadFile(t, "fruit.txt"); got != "apple\n" {
				t.Errorf("fruit.txt is %q after the denied sed, want it untouched", got)
			}
		})
	}
}
