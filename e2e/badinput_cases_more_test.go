package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cli is a CLI row.
func cli(name string, want int, msg string, args ...string) badCase {
	return badCase{name: name, surface: viaCLI, args: args, want: want, msg: msg}
}

// tool is an MCP row.
func tool(name, tool string, args map[string]any, want int, msg string) badCase {
	return badCase{name: name, surface: viaMCP, tool: tool, targs: args, want: want, msg: msg}
}

// writing marks a row as a valid input that writes, with a check.
func writing(c badCase, check func(*testing.T, *catalogue, string)) badCase {
	c.writes, c.check = true, check
	return c
}

func cliCases(t *testing.T, h *catalogue) []badCase {
	notDB := filepath.Join(h.dir, "not-a-database.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not SQLite\n", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("c", 100_000) // one argv string holds at most 128 KiB on Linux
	toEtc := climbToRoot(t) + "etc"
	return []badCase{
		cli("empty text", 2, "correction text is empty", "record", "--rule", catRule, "--text", ""),
		cli("invalid UTF-8 text", 2, "not valid UTF-8", "record", "--rule", catRule, "--text", "bad \xff byte"),
		writing(cli("100 kB text, stored whole", 0, "reinforcement "+catRule, "record", "--rule", catRule, "--text", big), storedLiterally("user_text", big)),
		cli("unknown rule", 1, `rule "tool.nope" not found`, "record", "--rule", "tool.nope", "--text", "x"),
		cli("bad timestamp: --at yesterday", 2, `--at "yesterday" is not an RFC 3339 time`, "record", "--rule", catRule, "--text", "x", "--at", "yesterday"),
		cli("future timestamp: --at 2099", 2, "--at: correction time 2099-01-01T00:00:00Z is in the future", "record", "--rule", catRule, "--text", "x", "--at", "2099-01-01T00:00:00Z"),
		cli("bad timestamp: --now 2026-02-30", 2, `--now "2026-02-30T00:00:00Z"`, "why", "--now", "2026-02-30T00:00:00Z"),
		cli("odd scope tag: space", 2, `context tag "a b" has characters that are not allowed`, "record", "--rule", catRule, "--text", "x", "--tag", "a b"),
		cli("odd scope tag: emoji", 2, `context tag "🚀"`, "snapshot", "--tag", "🚀"),
		cli("odd scope tag: slash-dot-dot", 2, `scope project "../etc"`, "snapshot", "--project", "../etc"),
		cli("snapshot max -1", 2, "--max -1: want 1 to 10000", "snapshot", "--max", "-1"),
		cli("snapshot max 99999999", 2, "--max 99999999", "snapshot", "--max", "99999999"),
		cli("snapshot max NaN", 2, `invalid argument "NaN" for "--max" flag`, "snapshot", "--max", "NaN"),
		cli("rules list limit -1", 2, "limit -1: want 0 (no limit) or more", "rules", "list", "--limit", "-1"),
		cli("rules list limit 999999: all rules", 0, catRule, "rules", "list", "--limit", "999999"),
		cli("threshold NaN", 2, `config c_min: "NaN" is not a finite number`, "config", "set", "c_min", "NaN"),
		cli("threshold +Inf", 2, `"+Inf" is not a finite number`, "config", "set", "category.security_policy.c_min", "+Inf"),
		cli("threshold -Inf", 2, `"-Inf" is not a finite number`, "config", "set", "--", "c_min", "-Inf"),
		cli("threshold 1e309", 2, `"1e309" is not a finite number`, "config", "set", "n_min", "1e309"),
		cli("threshold negative", 2, "-1 is out of range", "config", "set", "--", "n_min", "-1"),
		cli("eval thresholds NaN", 2, `"NaN" is not a number in [0, 1]`, "eval", "--thresholds", "NaN,0.7"),
		cli("calibrate target Inf", 2, "--target-auto +Inf: want a precision in (0, 1]", "eval", "calibrate", "--target-auto", "Inf", "--dry-run"),
		cli("model folder escaping its root", 2, `the model folder path "models/../../../../etc" escapes its root`,
			"--embedder", "ort", "--model-dir", "models/../../../../etc", "classify", "stop using sed"),
		cli("model folder ../…/../etc: no model there", 1, "no model.onnx or onnx/model.onnx in the model folder /etc",
			"--embedder", "ort", "--model-dir", toEtc, "classify", "stop using sed"),
		cli("database path a folder", 1, "cannot open database", "--db", h.dir, "rules", "list"),
		cli("database file not SQLite", 1, "not-a-database.db", "--db", notDB, "rules", "list"),
		cli("confirm an unknown id", 1, "confirmation 999999 not found", "confirm", "999999", "--accept"),
		cli("confirm a malformed id", 2, `"abc" is not a confirmation id`, "confirm", "abc", "--reject"),
		cli("embed with batch 0", 2, "--batch 0: want 1 to 4096", "embed", "--batch", "0", "hello"),
		cli("classify empty text", 2, "correction text is empty", "classify", " "),
		cli("unknown flag", 2, "unknown flag: --colour", "record", "--rule", catRule, "--text", "x", "--colour"),
		writing(cli("SQL in text", 0, "reinforcement "+catRule, "record", "--rule", catRule, "--text", sqlDrop), storedLiterally("user_text", sqlDrop)),
		writing(cli("SQL in frame", 0, "reinforcement "+catRule, "record", "--rule", catRule, "--text", "x", "--frame", sqlOr), storedLiterally("frame_id", sqlOr)),
		writing(cli("SQL in agent output", 0, "reinforcement "+catRule, "record", "--rule", catRule, "--text", "x", "--agent-output", sqlDelete), storedLiterally("agent_output", sqlDelete)),
		writing(cli("SQL in a rule text", 0, sqlDrop, "rules", "add", "--rule", "user.sql-text", "--category", "code_style", "--text", sqlDrop), nil),
		cli("SQL in rule id", 2, "malformed rule id", "record", "--rule", sqlDrop, "--text", "x"),
		cli("SQL in project", 2, "scope project", "record", "--rule", catRule, "--text", "x", "--project", sqlOr),
		cli("SQL in new rule id", 2, "malformed rule id", "rules", "add", "--rule", sqlOr, "--category", "code_style", "--text", "x"),
		cli("SQL in category", 2, "malformed category", "rules", "add", "--rule", "user.x", "--category", sqlDrop, "--text", "x"),
		cli("SQL in topic", 2, "topic", "rules", "add", "--rule", "user.x", "--category", "code_style", "--text", "x", "--topic", sqlDelete),
		cli("SQL in rules show", 2, "malformed rule id", "rules", "show", sqlDrop),
		cli("SQL in why", 2, "malformed rule id", "why", sqlOr),
		cli("SQL in config key", 2, "unknown config key", "config", "set", sqlDrop, "1"),
		cli("SQL in rules list category", 2, "malformed category", "rules", "list", "--category", sqlOr),
	}
}

func mcpCases() []badCase {
	mb := strings.Repeat("m", 1_000_000)
	rec := func(extra map[string]any) map[string]any {
		m := map[string]any{"text": "use pnpm", "rule_id": catRule}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	return []badCase{
		tool("empty text", "record_correction", map[string]any{"text": "", "rule_id": catRule}, mcpToolError, "invalid: correction text is empty"),
		tool("missing text", "record_correction", map[string]any{"rule_id": catRule}, mcpToolError, `missing properties: ["text"]`),
		tool("wrong type: text a number", "record_correction", map[string]any{"text": 5, "rule_id": catRule}, mcpToolError, "/properties/text: type: 5"),
		tool("wrong type: polarity a string", "record_correction", rec(map[string]any{"polarity": "-1"}), mcpToolError, `/properties/polarity: type: -1 has type "string"`),
		tool("polarity 2", "record_correction", rec(map[string]any{"polarity": 2}), mcpToolError, "/properties/polarity: enum: 2"),
		tool("polarity 0.5", "record_correction", rec(map[string]any{"polarity": 0.5}), mcpToolError, "/properties/polarity: type: 0.5"),
		tool("polarity 1e300", "record_correction", rec(map[string]any{"polarity": 1e300}), mcpToolError, "/properties/polarity: enum"),
		tool("unknown argument", "record_correction", rec(map[string]any{"projekt": "api"}), mcpToolError, `unexpected additional properties ["projekt"]`),
		tool("unknown rule", "record_correction", map[string]any{"text": "x", "rule_id": "tool.nope"}, mcpToolError, `not_found: rule "tool.nope" not found`),
		tool("odd scope tag", "record_correction", rec(map[string]any{"context_tags": []string{"a b"}}), mcpToolError, `invalid: context tag "a b"`),
		writing(tool("1 MB text, stored whole", "record_correction", map[string]any{"text": mb, "rule_id": catRule}, mcpOK, `"event_type":"reinforcement"`),
			storedLiterally("user_text", mb)),
		tool("1 MiB + 1 text", "record_correction", map[string]any{"text": strings.Repeat("m", 1<<20+1), "rule_id": catRule},
			mcpToolError, "too_large: correction text is 1048577 bytes long: at most 1048576"),
		tool("persona max -1", "get_persona", map[string]any{"max": -1}, mcpToolError, "max -1: want 1 to 10000"),
		tool("persona max 999999", "get_persona", map[string]any{"max": 999999}, mcpToolError, "max 999999"),
		tool("persona format xml", "get_persona", map[string]any{"format": "xml"}, mcpToolError, "/properties/format: enum: xml"),
		tool("list limit -1", "list_rules", map[string]any{"limit": -1}, mcpToolError, "limit -1: want 1 to 10000"),
		tool("list limit 999999", "list_rules", map[string]any{"limit": 999999}, mcpToolError, "limit 999999"),
		tool("history limit -1", "explain_rule", map[string]any{"rule_id": catRule, "history_limit": -1}, mcpToolError, "history limit -1"),
		tool("history limit 999999", "explain_rule", map[string]any{"rule_id": catRule, "history_limit": 999999}, mcpToolError, "history limit 999999"),
		tool("explain unknown rule", "explain_rule", map[string]any{"rule_id": "tool.nope"}, mcpToolError, "not_found"),
		tool("resolve id -1", "resolve_confirmation", map[string]any{"id": -1, "action": "reject"}, mcpToolError, "id -1"),
		tool("resolve unknown id", "resolve_confirmation", map[string]any{"id": 99999, "action": "accept"}, mcpToolError, "not_found: confirmation 99999 not found"),
		tool("confirmations status open", "list_confirmations", map[string]any{"status": "open"}, mcpToolError, "/properties/status: enum: open"),
		tool("confirmations limit -1", "list_confirmations", map[string]any{"limit": -1}, mcpToolError, "limit -1: want 1 to 10000"),
		tool("confirmations limit 999999", "list_confirmations", map[string]any{"limit": 999999}, mcpToolError, "limit 999999"),
		tool("pending confirmations", "list_confirmations", map[string]any{}, mcpOK, `"confirmations":[`),
		tool("unknown tool", "drop_tables", map[string]any{}, mcpProtocolError, `unknown tool "drop_tables"`),
		writing(tool("SQL in text", "record_correction", map[string]any{"text": sqlDelete, "rule_id": catRule}, mcpOK, `"rule_id":"`+catRule+`"`),
			storedLiterally("user_text", sqlDelete)),
		writing(tool("SQL in frame id", "record_correction", rec(map[string]any{"frame_id": sqlDrop}), mcpOK, `"rule_id":"`+catRule+`"`),
			storedLiterally("frame_id", sqlDrop)),
		tool("SQL in rule id", "record_correction", map[string]any{"text": "x", "rule_id": sqlOr}, mcpToolError, "malformed rule id"),
		tool("SQL in project", "get_persona", map[string]any{"project": sqlDrop}, mcpToolError, "scope project"),
		tool("SQL in environment", "classify_correction", map[string]any{"text": "x", "environment": sqlOr}, mcpToolError, "scope environment"),
		tool("SQL in category", "list_rules", map[string]any{"category": sqlDelete}, mcpToolError, "malformed category"),
		tool("SQL in after cursor", "list_rules", map[string]any{"after": sqlOr, "limit": 2}, mcpOK, `"rules"`),
		tool("SQL in explain", "explain_rule", map[string]any{"rule_id": sqlDrop}, mcpToolError, "malformed rule id"),
	}
}

// registryCases are the registry rows: a YAML bomb, a file over the 16 MiB
// limit, malformed YAML, then a registry of 10,000 rules through HTTP and
// through the CLI (both accepted: 1.4 MB is well within the limits).
func registryCases(t *testing.T, h *catalogue) []badCase {
	bomb, err := os.ReadFile(filepath.Join("testdata", "yaml-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte("version: 1\nrules: []\n# " + strings.Repeat("x", 17<<20) + "\n")
	write := func(name string, data []byte) string {
		p := filepath.Join(h.dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bombFile, hugeFile := write("bomb.yaml", bomb), write("huge.yaml", huge)
	reg := func(name string, body []byte, want int, msg string) badCase {
		return badCase{name: name, surface: viaHTTP, method: http.MethodPost, path: "/v1/registry/sync?name=e2e", ctype: "application/yaml", body: body, want: want, msg: msg}
	}
	textPlain := reg("registry as text/plain", []byte("version: 1\nrules: []\n"), 400, `Content-Type "text/plain" is not accepted`)
	textPlain.ctype = "text/plain"
	return []badCase{
		reg("YAML bomb", bomb, 400, "alias *a: anchors and aliases are not allowed in a registry"),
		reg("registry over 16 MiB", huge, 413, "16777216"),
		reg("malformed YAML", []byte("version: 1\nrules: [\n"), 400, "e2e:2: YAML syntax"),
		reg("empty registry body", []byte{}, 400, "request body is empty"),
		reg("SQL in a registry rule id", []byte("version: 1\nrules:\n  - rule_id: \""+sqlDrop+"\"\n    category: code_style\n    template: x\n"), 400, "malformed rule id"),
		textPlain,
		cli("YAML bomb", 2, "alias *a: anchors and aliases are not allowed in a registry", "registry", "sync", "--registry", bombFile),
		cli("registry over 16 MiB", 2, "larger than 16777216 bytes", "registry", "sync", "--registry", hugeFile),
		cli("registry file missing", 2, "cannot read registry", "registry", "sync", "--registry", filepath.Join(h.dir, "missing.yaml")),
		writing(reg("10,000 rules", bulkRegistry("bulk.http", 10000), 200, `"added":10000`), nil),
		writing(cli("10,000 rules", 0, "10000 rules (10000 added", "registry", "sync", "--registry", write("bulk.yaml", bulkRegistry("bulk.cli", 10000))), nil),
	}
}

// bulkRegistry is a valid registry of n rules named prefix.rule-NNNNN.
func bulkRegistry(prefix string, n int) []byte {
	var b strings.Builder
	b.WriteString("version: 1\nrules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - rule_id: %s.rule-%05d\n    category: code_style\n    severity: should\n    template: \"Bulk rule %d about widget %d and gadget %d\"\n",
			prefix, i, i, i*7%1000, i%97)
	}
	return []byte(b.String())
}
