package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// secretsRule is a rule of the default pack a correction can name.
const secretsRule = "security.no-secrets-in-code"

// corpusHarness is what the channels of TestSecretsCorpus send through: one
// `lexsona serve` over db, and the binary for the CLI and MCP channels.
type corpusHarness struct {
	bin, db, dir string
	http         *Client
}

// channel is one way text from outside reaches the store. send sends each
// text once (id tells the texts apart where a rule id or session is named)
// and returns, for each, "" when accepted or why it was refused.
type channel struct {
	name string
	send func(t *testing.T, h *corpusHarness, id string, texts []string) []string
}

// corpusChannels are every channel reachable from outside but import (see
// importChannel).
var corpusChannels = []channel{
	{"POST /v1/corrections text", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/corrections", map[string]any{"text": text})
		})
	}},
	{"POST /v1/corrections agent_output", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/corrections", map[string]any{"text": "you pasted a secret again", "rule_id": secretsRule, "agent_output": text})
		})
	}},
	{"POST /v1/corrections CORRECT[...]", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/corrections", map[string]any{"text": "CORRECT[" + secretsRule + "]: " + text})
		})
	}},
	{"POST /v1/rules text", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/rules", newRule(fmt.Sprintf("corpus.%s-%d", id, i), "Never commit this: "+text))
		})
	}},
	{"PATCH /v1/rules/{id} text", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			rule := fmt.Sprintf("corpus.%s-%d", id, i)
			if st, body := h.post(t, "/v1/rules", newRule(rule, "Never commit secrets")); st != http.StatusCreated {
				return st, body
			}
			return h.send(t, http.MethodPatch, "/v1/rules/"+rule, map[string]any{"text": "Never commit this: " + text})
		})
	}},
	{"hook UserPromptSubmit", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/hooks/claude-code", h.hookEvent(id, i, "UserPromptSubmit", map[string]any{"prompt": text}))
		})
	}},
	{"hook UserPromptSubmit CORRECT[...]", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/hooks/claude-code", h.hookEvent(id, i, "UserPromptSubmit", map[string]any{"prompt": "CORRECT[" + secretsRule + "]: " + text}))
		})
	}},
	{"hook UserPromptSubmit remember:", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			return h.post(t, "/v1/hooks/claude-code", h.hookEvent(id, i, "UserPromptSubmit", map[string]any{"prompt": "remember: never commit " + text}))
		})
	}},
	{"hook PreToolUse denied Bash command", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		h.activate(t, sedRule)
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			command := "sed -i 's|PLACEHOLDER|" + text + "|' .env"
			st, body := h.post(t, "/v1/hooks/claude-code", h.hookEvent(id, i, "PreToolUse",
				map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command}}))
			if !strings.Contains(string(body), `"permissionDecision":"deny"`) {
				return 0, append([]byte("not denied: "), body...)
			}
			return st, body
		})
	}},
	{"MCP record_correction", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		cmd := exec.Command(h.bin, "mcp", "--db", h.db, "--embedder", "lexical")
		cmd.Env = cleanEnv()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "lexsona-e2e", Version: "1"}, nil).
			Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
		if err != nil {
			t.Fatalf("connecting to `lexsona mcp`: %v", err)
		}
		defer cs.Close()
		return h.each(t, texts, func(i int, text string) (int, []byte) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "record_correction",
				Arguments: map[string]any{"text": "don't paste secrets", "rule_id": secretsRule, "agent_output": text}})
			if err != nil {
				return 0, []byte(err.Error())
			}
			if res.IsError {
				return 0, []byte(fmt.Sprint(res.Content))
			}
			return http.StatusOK, nil
		})
	}},
	{"lexsona record", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.cli(t, texts, func(i int, text string) []string {
			return []string{"record", "--rule", secretsRule, "--text=" + text}
		})
	}},
	{"lexsona rules add", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		return h.cli(t, texts, func(i int, text string) []string {
			return []string{"rules", "add", "--rule", fmt.Sprintf("corpus.%s-%d", id, i), "--category", "security_policy",
				"--severity", "must", "--text=Never commit this: " + text}
		})
	}},
	{"POST /v1/registry/sync YAML", func(t *testing.T, h *corpusHarness, id string, texts []string) []string {
		st, body := h.syncRegistry(t, "corpus-"+id, corpusRegistry("corpus-"+id, texts, strconv.Quote))
		notes := make([]string, len(texts))
		if st != http.StatusOK {
			for i := range notes {
				notes[i] = fmt.Sprintf("the sync answered %d: %s", st, clipBody(body))
			}
		}
		return notes
	}},
}

// sedRule is the must rule of the default pack whose check denies a Bash
// call running sed -i.
const sedRule = "tool.no-sed-for-file-editing"

// activate records corrections on rule until it is active, so that the
// hooks enforce its checks.
func (h *corpusHarness) activate(t *testing.T, rule string) {
	t.Helper()
	for i := range 20 {
		var v struct {
			State string `json:"state"`
		}
		h.http.MustJSON(t, http.MethodGet, "/v1/rules/"+rule, nil, http.StatusOK, &v)
		if v.State == "active" {
			return
		}
		h.http.MustJSON(t, http.MethodPost, "/v1/corrections",
			map[string]any{"text": fmt.Sprintf("stop editing files with sed -i (%d)", i), "rule_id": rule}, http.StatusCreated, nil)
	}
	t.Fatalf("rule %s is not active after 20 corrections", rule)
}

// newRule is the body of POST /v1/rules for a must rule of text.
func newRule(id, text string) map[string]any {
	return map[string]any{"rule_id": id, "category": "security_policy", "severity": "must", "text": text}
}

// corpusRegistry is a rule registry named name with one rule per text,
// the text in its template and its example, each written as quote writes
// a YAML double-quoted scalar.
func corpusRegistry(name string, texts []string, quote func(string) string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "version: 1\nname: %s\nrules:\n", name)
	for i, text := range texts {
		fmt.Fprintf(&b, "  - rule_id: %s.rule-%d\n    category: security_policy\n    severity: must\n", name, i)
		fmt.Fprintf(&b, "    template: %s\n    examples: [%s]\n", quote("Never commit this: "+text), quote(text))
	}
	return []byte(b.String())
}

// hookEvent is a Claude Code hook event of session id-i with fields.
func (h *corpusHarness) hookEvent(id string, i int, event string, fields map[string]any) map[string]any {
	ev := map[string]any{"session_id": fmt.Sprintf("corpus-%s-%d", id, i), "hook_event_name": event, "cwd": h.dir}
	for k, v := range fields {
		ev[k] = v
	}
	return ev
}

// post sends v as JSON and returns the status and body.
func (h *corpusHarness) post(t *testing.T, path string, v any) (int, []byte) {
	return h.send(t, http.MethodPost, path, v)
}

func (h *corpusHarness) send(t *testing.T, method, path string, v any) (int, []byte) {
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	r := h.http.MustDo(t, method, path, "application/json", body)
	return r.Status, r.Body
}

// syncRegistry posts a registry to POST /v1/registry/sync.
func (h *corpusHarness) syncRegistry(t *testing.T, name string, yaml []byte) (int, []byte) {
	r, err := h.http.Do(http.MethodPost, "/v1/registry/sync?name="+url.QueryEscape(name), "application/yaml", yaml, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Status, r.Body
}

// each sends each text with do and notes a status other than 200, 201 or
// 204 (a hook's "nothing to say").
func (h *corpusHarness) each(t *testing.T, texts []string, do func(i int, text string) (int, []byte)) []string {
	notes := make([]string, len(texts))
	for i, text := range texts {
		if st, body := do(i, text); st != http.StatusOK && st != http.StatusCreated && st != http.StatusNoContent {
			notes[i] = fmt.Sprintf("%d %s", st, clipBody(body))
		}
	}
	return notes
}

// cli runs the binary over h.db once per text, with the arguments args
// gives, four at a time, and notes a failed run.
func (h *corpusHarness) cli(t *testing.T, texts []string, args func(i int, text string) []string) []string {
	notes := make([]string, len(texts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, text := range texts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			cmd := exec.CommandContext(t.Context(), h.bin, append([]string{"--db", h.db, "--embedder", "lexical"}, args(i, text)...)...)
			cmd.Env = cleanEnv()
			if out, err := cmd.CombinedOutput(); err != nil {
				notes[i] = fmt.Sprintf("%v: %s", err, strings.TrimSpace(string(out)))
			}
		}()
	}
	wg.Wait()
	return notes
}
