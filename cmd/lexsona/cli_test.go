package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// cli runs the CLI in process against one database.
type cli struct {
	tb testing.TB
	db string
}

func newCLI(tb testing.TB) *cli {
	tb.Helper()
	tb.Setenv("LEXSONA_DB", "")
	tb.Setenv("LEXSONA_EMBEDDER", "lexical")
	return &cli{tb: tb, db: filepath.Join(tb.TempDir(), "lexsona.db")}
}

// run executes args with --db prepended and returns exit code, stdout, stderr.
func (c *cli) run(args ...string) (int, string, string) {
	c.tb.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"--db", c.db}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// mustJSON runs args (with --json), fails unless the exit code is 0, and
// decodes stdout into a map.
func (c *cli) mustJSON(args ...string) map[string]any {
	c.tb.Helper()
	code, out, errs := c.run(append(args, "--json")...)
	if code != 0 {
		c.tb.Fatalf("lexsona %s: exit %d, stderr %s", strings.Join(args, " "), code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		c.tb.Fatalf("lexsona %s: stdout is not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	return m
}

// evidenceOnly makes explicit acts plain evidence (explicit.weight 0), for
// tests of the Bayesian activation: a rule added then starts inactive.
func (c *cli) evidenceOnly() {
	c.tb.Helper()
	if code, _, errs := c.run("config", "set", "explicit.weight", "0"); code != 0 {
		c.tb.Fatalf("config set explicit.weight 0: %s", errs)
	}
}

func (c *cli) mustAddRule(id, category, severity string, extra ...string) {
	c.tb.Helper()
	c.mustJSON(append([]string{"rules", "add", "--rule", id, "--category", category, "--severity", severity, "--text", "Text of " + id}, extra...)...)
}

// eventCount is the number of events in the rule's history.
func (c *cli) eventCount(id string) int {
	c.tb.Helper()
	code, out, _ := c.run("why", "--json", id)
	if code != 0 {
		return -1
	}
	var w struct {
		History []json.RawMessage `json:"history"`
	}
	json.Unmarshal([]byte(out), &w)
	return len(w.History)
}

func TestGlobalFlagsBeforeOrAfterSubcommand(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--db", filepath.Join(dir, "a.db"), "migrate", "--json"},
		{"migrate", "--db", filepath.Join(dir, "b.db"), "--json"},
		{"--json", "migrate", "--db=" + filepath.Join(dir, "c.db")},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil || m["schema_version"] == nil {
			t.Fatalf("%v: %v %s", args, err, out.String())
		}
		if !strings.HasSuffix(m["db"].(string), ".db") {
			t.Errorf("%v: db %v", args, m["db"])
		}
	}
}

func TestRulesAddContract(t *testing.T) {
	c := newCLI(t)
	m := c.mustJSON("rules", "add", "--rule", "tool.no-sed-for-file-editing", "--category", "tool_preference",
		"--severity", "must", "--text", "Never use sed", "--project", "api", "--tag", "cli", "--topic", "file-editing")
	for k, want := range map[string]any{
		"rule_id": "tool.no-sed-for-file-editing", "category": "tool_preference", "severity": "must",
		"alpha": 2.0, "beta": 5.0, "topic": "file-editing",
	} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if conf := m["confidence"].(float64); conf < 0.28571 || conf > 0.28572 {
		t.Errorf("confidence %v, want 0.2857", conf)
	}
	scope := m["scope"].(map[string]any)
	if scope["project"] != "api" || scope["context_tags"].([]any)[0] != "cli" {
		t.Errorf("scope %v", scope)
	}
}

func TestRecordContractAndActivation(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.pnpm-not-npm", "general", "should")
	if r := c.mustJSON("why", "tool.pnpm-not-npm")["rule"].(map[string]any); r["state"] != "active" || r["stated"] == nil {
		t.Errorf("a rule the user adds is %v (stated %v), want active at once", r["state"], r["stated"])
	}
	// With explicit.weight 0 the evidence alone decides: the paper's activation.
	c.evidenceOnly()
	var m map[string]any
	for i := 1; i <= 10; i++ {
		m = c.mustJSON("record", "--rule", "tool.pnpm-not-npm", "--text", "pnpm, not npm", "--at", "2025-11-22T10:00:00Z")
		if want := i < 10; m["active"] == want {
			t.Fatalf("after %d reinforcements active=%v", i, m["active"])
		}
	}
	// The shape of POST /v1/corrections' answer for a named rule.
	for _, k := range []string{"event_id", "rule_id", "event_type", "alpha", "beta", "confidence", "active", "decision", "score", "candidates"} {
		if _, ok := m[k]; !ok {
			t.Errorf("record output lacks %q: %v", k, m)
		}
	}
	if m["decision"] != "explicit" || m["score"] != 1.0 || len(m["candidates"].([]any)) != 0 {
		t.Errorf("decision %v score %v candidates %v", m["decision"], m["score"], m["candidates"])
	}
	if m["alpha"] != 12.0 || m["event_type"] != "reinforcement" {
		t.Errorf("alpha %v type %v", m["alpha"], m["event_type"])
	}
	m = c.mustJSON("record", "--rule", "tool.pnpm-not-npm", "--text", "npm is fine here", "--counter")
	if m["beta"] != 6.0 || m["event_type"] != "counterexample" {
		t.Errorf("counterexample: %v", m)
	}
}

func TestSnapshotContract(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("style.concise", "communication_style", "should", "--topic", "verbosity", "--at", "2025-11-01T00:00:00Z")
	c.mustAddRule("style.detailed", "communication_style", "should", "--topic", "verbosity", "--project", "logs", "--at", "2025-11-01T00:00:00Z")
	for _, id := range []string{"style.concise", "style.detailed"} {
		for i := 0; i < 8; i++ {
			c.mustJSON("record", "--rule", id, "--text", "x", "--at", "2025-11-20T10:00:00Z")
		}
	}
	m := c.mustJSON("snapshot", "--project", "logs", "--now", "2025-11-22T10:00:00Z")
	rules := m["rules"].([]any)
	if len(rules) != 1 || rules[0].(map[string]any)["rule_id"] != "style.detailed" {
		t.Fatalf("rules %v", rules)
	}
	r := rules[0].(map[string]any)
	for _, k := range []string{"rule_id", "text", "severity", "confidence", "alpha", "beta", "reinforcements", "specificity", "provisional", "last_correction"} {
		if _, ok := r[k]; !ok {
			t.Errorf("snapshot rule lacks %q", k)
		}
	}
	losers := m["losers"].([]any)
	if len(losers) != 1 {
		t.Fatalf("losers %v", losers)
	}
	l := losers[0].(map[string]any)
	if l["rule_id"] != "style.concise" || l["lost_to"] != "style.detailed" || l["criterion"] != "specificity" {
		t.Errorf("loser %v", l)
	}
	for _, k := range []string{"scope", "truncated", "prompt", "estimated_tokens"} {
		if _, ok := m[k]; !ok {
			t.Errorf("snapshot lacks %q", k)
		}
	}
	code, prompt, _ := c.run("snapshot", "--project", "logs", "--now", "2025-11-22T10:00:00Z", "--format", "prompt")
	if code != 0 || !strings.HasPrefix(prompt, "## LexSona Behavioral Rules (scope: */logs/*)") ||
		!strings.Contains(prompt, "- [style.detailed] Text of style.detailed (stated by the user: 2025-11-01)") {
		t.Errorf("prompt:\n%s", prompt)
	}
}

func TestWhyHistoryOldestFirst(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("code.wrap-errors", "code_style", "should")
	c.mustJSON("record", "--rule", "code.wrap-errors", "--text", "wrap it", "--frame", "frame-1")
	c.mustJSON("record", "--rule", "code.wrap-errors", "--text", "not here", "--counter")
	m := c.mustJSON("why", "code.wrap-errors")
	h := m["history"].([]any)
	var types []string
	for _, e := range h {
		types = append(types, e.(map[string]any)["event_type"].(string))
	}
	if strings.Join(types, ",") != "creation,reinforcement,counterexample" {
		t.Errorf("history %v", types)
	}
	if h[1].(map[string]any)["frame_id"] != "frame-1" {
		t.Errorf("frame id lost: %v", h[1])
	}
	if m["rule"].(map[string]any)["alpha"] != 3.0 {
		t.Errorf("rule %v", m["rule"])
	}
}

func TestRecordIdempotency(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.rg", "tool_preference", "should")
	first := c.mustJSON("record", "--rule", "tool.rg", "--text", "use rg", "--idempotency-key", "k1")
	again := c.mustJSON("record", "--rule", "tool.rg", "--text", "use rg", "--idempotency-key", "k1")
	if first["event_id"] != again["event_id"] || again["alpha"] != 3.0 {
		t.Errorf("replay %v vs %v", again, first)
	}
	code, _, errs := c.run("record", "--rule", "tool.rg", "--text", "different", "--idempotency-key", "k1")
	if code != 1 || !strings.Contains(errs, "k1") {
		t.Errorf("conflict: exit %d %s", code, errs)
	}
	if n := c.eventCount("tool.rg"); n != 2 {
		t.Errorf("%d events, want creation + one reinforcement", n)
	}
}

func TestConfigShowSet(t *testing.T) {
	c := newCLI(t)
	m := c.mustJSON("config", "set", "category.security_policy.n_min", "12")
	if m["categories"].(map[string]any)["security_policy"].(map[string]any)["n_min"] != 12.0 {
		t.Errorf("config %v", m)
	}
	m = c.mustJSON("config", "show")
	if m["alpha_prior"] != 2.0 || m["categories"].(map[string]any)["security_policy"].(map[string]any)["n_min"] != 12.0 {
		t.Errorf("config show %v", m)
	}
}

func TestWhyText(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("security.no-sudo", "security_policy", "must")
	long := strings.Repeat("é", 100)
	c.mustJSON("record", "--rule", "security.no-sudo", "--text", long)
	code, out, errs := c.run("why", "security.no-sudo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "n 1; active needs n >= 10 and confidence >= 0.80") {
		t.Errorf("thresholds missing from:\n%s", out)
	}
	if !utf8.ValidString(out) || !strings.Contains(out, strings.Repeat("é", 77)+"...") {
		t.Errorf("long text not cut at a rune boundary:\n%s", out)
	}
}

// record --instruction classifies the reporter's sentence and keeps the
// user's words; a bad instruction is refused naming it.
func TestRecordInstruction(t *testing.T) {
	c := newCLI(t)
	m := c.mustJSON("record", "--text", "请不要再用 sed 改文件了", "--instruction", "stop editing files with sed")
	cands, _ := m["candidates"].([]any)
	if len(cands) == 0 || cands[0].(map[string]any)["rule_id"] != "tool.no-sed-for-file-editing" {
		t.Fatalf("record with an instruction: %v, want tool.no-sed-for-file-editing first", m)
	}
	code, _, stderr := c.run("record", "--text", "use pnpm", "--instruction", "?!")
	if code == 0 || !strings.Contains(stderr, "instruction has no letters or digits") {
		t.Errorf("a bad instruction: exit %d, %q", code, stderr)
	}
}
