package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// isoRules are the rules of the isolation registry: one per (environment,
// project) pair, one per environment, one per project, and a global one.
var isoRules = []struct {
	id, env, project string
}{
	{"iso.work-api", "work", "api"}, {"iso.work-web", "work", "web"},
	{"iso.home-api", "personal", "api"}, {"iso.home-web", "personal", "web"},
	{"iso.work-any", "work", ""}, {"iso.home-any", "personal", ""},
	{"iso.any-api", "", "api"}, {"iso.any-web", "", "web"},
	{"iso.global", "", ""},
}

// isoVisible lists the rules a context may see: those whose every set
// scope field equals the context's.
func isoVisible(env, project string) []string {
	var out []string
	for _, r := range isoRules {
		if (r.env == "" || r.env == env) && (r.project == "" || r.project == project) {
			out = append(out, r.id)
		}
	}
	slices.Sort(out)
	return out
}

func isoRegistry() []byte {
	var b strings.Builder
	b.WriteString("version: 1\nrules:\n")
	for _, r := range isoRules {
		fmt.Fprintf(&b, "  - rule_id: %s\n    category: tool_preference\n    severity: should\n    template: \"Rule %s applies here\"\n    scope: {", r.id, r.id)
		var parts []string
		if r.env != "" {
			parts = append(parts, "environment: "+r.env)
		}
		if r.project != "" {
			parts = append(parts, "project: "+r.project)
		}
		b.WriteString(strings.Join(parts, ", ") + "}\n")
	}
	return []byte(b.String())
}

// TestScopeIsolation makes nine rules active, scoped to two environments ×
// two projects (and each alone, and neither), and checks for every context —
// each pair, each field alone, none, an unknown one — that the persona (JSON
// and prompt), the rules listing by scope, the why trace and the MCP tools
// show exactly the rules whose scope matches it: never another project's or
// environment's.
func TestScopeIsolation(t *testing.T) {
	bin := MustBuildBinary(t)
	dbPath := filepath.Join(t.TempDir(), "iso.db")
	p := MustStartServe(t, bin, dbPath)
	if _, err := p.WaitReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c := NewClient(p.Base, 2)
	if r := c.MustDo(t, http.MethodPost, "/v1/registry/sync?name=iso", "application/yaml", isoRegistry()); r.Status != http.StatusOK {
		t.Fatalf("registry sync: %d %s", r.Status, r.Body)
	}
	for _, r := range isoRules {
		for i := range 8 { // tool_preference activates at n ≥ 3 and confidence ≥ 0.6: (2+8)/(7+8) = 0.67
			c.MustJSON(t, http.MethodPost, "/v1/corrections", map[string]any{"text": fmt.Sprintf("%s, take %d", r.id, i), "rule_id": r.id}, http.StatusCreated, nil)
		}
	}
	cmd := exec.Command(bin, "mcp", "--db", dbPath, "--embedder", "lexical")
	cmd.Env = cleanEnv()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lexsona-e2e", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, ctx := range [][2]string{{"work", "api"}, {"work", "web"}, {"personal", "api"}, {"personal", "web"},
		{"work", ""}, {"", "api"}, {"", ""}, {"elsewhere", "other"}} {
		env, project := ctx[0], ctx[1]
		want := isoVisible(env, project)
		q := url.Values{}
		if env != "" {
			q.Set("environment", env)
		}
		if project != "" {
			q.Set("project", project)
		}
		name := fmt.Sprintf("environment=%q project=%q", env, project)
		var snap, list struct {
			Rules []struct {
				RuleID string `json:"rule_id"`
			} `json:"rules"`
		}
		c.MustJSON(t, http.MethodGet, "/v1/persona?"+q.Encode(), nil, http.StatusOK, &snap)
		// Both parameters, even empty, so that the listing is filtered by
		// scope in the context with neither.
		c.MustJSON(t, http.MethodGet, "/v1/rules?limit=10000&environment="+url.QueryEscape(env)+"&project="+url.QueryEscape(project), nil, http.StatusOK, &list)
		var why struct {
			Winners []string `json:"winners"`
		}
		c.MustJSON(t, http.MethodGet, "/v1/why?"+q.Encode(), nil, http.StatusOK, &why)
		prompt := string(c.MustDo(t, http.MethodGet, "/v1/persona?format=prompt&"+q.Encode(), "", nil).Body)
		mcpPersona := mcpText(t, cs, "get_persona", map[string]any{"environment": env, "project": project})
		var mcpList struct {
			Rules []struct {
				RuleID string `json:"rule_id"`
			} `json:"rules"`
		}
		mustUnmarshal(t, mcpText(t, cs, "list_rules", map[string]any{"environment": env, "project": project, "limit": 1000}), &mcpList)

		ids := func(rs []struct {
			RuleID string `json:"rule_id"`
		}) []string {
			var out []string
			for _, r := range rs {
				if strings.HasPrefix(r.RuleID, "iso.") {
					out = append(out, r.RuleID)
				}
			}
			slices.Sort(out)
			return out
		}
		inText := func(s string) []string {
			var out []string
			for _, r := range isoRules {
				if strings.Contains(s, "Rule "+r.id+" applies") {
					out = append(out, r.id)
				}
			}
			slices.Sort(out)
			return out
		}
		slices.Sort(why.Winners)
		for _, got := range []struct {
			what string
			ids  []string
		}{
			{"GET /v1/persona", ids(snap.Rules)}, {"GET /v1/persona?format=prompt", inText(prompt)},
			{"GET /v1/why winners", why.Winners}, {"MCP get_persona", inText(mcpPersona)},
		} {
			if !slices.Equal(got.ids, want) {
				t.Errorf("%s: %s shows %v, want %v", name, got.what, got.ids, want)
			}
		}
		// A listing filtered by scope holds the rules that apply there.
		for _, got := range []struct {
			what string
			ids  []string
		}{{"GET /v1/rules", ids(list.Rules)}, {"MCP list_rules", ids(mcpList.Rules)}} {
			if got.what == "MCP list_rules" && env == "" && project == "" {
				continue // list_rules without scope fields does not filter
			}
			if !slices.Equal(got.ids, want) {
				t.Errorf("%s: %s lists %v, want %v", name, got.what, got.ids, want)
			}
		}
	}
}

// mcpText calls a tool and returns its text, failing on any error.
func mcpText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	for k, v := range args {
		if v == "" {
			delete(args, k)
		}
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s(%v): %s", tool, args, b.String())
	}
	return b.String()
}

func mustUnmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decoding %s: %v", clip(s), err)
	}
}
