package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// Characters that change how stored text prints: an ANSI escape sequence
// (clears the screen, sets the title), BEL, NUL, a lone carriage return,
// a C1 CSI and the right-to-left override.
const (
	ctrlESC = "use pnpm \x1b[2J\x1b]0;owned\a"
	ctrlBEL = "use pnpm\a"
	ctrlNUL = "use pnpm\x00 now"
	ctrlCR  = "use pnpm\rFAKE LINE"
	ctrlC1  = "use pnpm \u009b31m"
	ctrlRLO = "use pnpm \u202Etxt.exe"
	ctrlLRI = "frame\u2066"
)

// controlCases are rows of the bad-input catalogue that put control or
// bidirectional formatting characters in stored text through each front
// end: all are refused naming the field and the character.
func controlCases() []badCase {
	body := func(field, v string) string {
		return `{"text":"use pnpm","rule_id":"` + catRule + `",` + jsonString(field) + `:` + jsonQuote(v) + `}`
	}
	return []badCase{
		post("ESC in text", "/v1/corrections", `{"text":`+jsonQuote(ctrlESC)+`,"rule_id":"`+catRule+`"}`, 400, "correction text contains a control character (U+001B"),
		post("BEL in text", "/v1/corrections", `{"text":`+jsonQuote(ctrlBEL)+`,"rule_id":"`+catRule+`"}`, 400, "U+0007"),
		post("NUL in agent_output", "/v1/corrections", body("agent_output", ctrlNUL), 400, "agent output contains a control character (U+0000"),
		post("RLO in agent_output", "/v1/corrections", body("agent_output", ctrlRLO), 400, "U+202E"),
		post("lone CR in text", "/v1/corrections", `{"text":`+jsonQuote(ctrlCR)+`,"rule_id":"`+catRule+`"}`, 400, "U+000D"),
		post("C1 in text", "/v1/corrections", `{"text":`+jsonQuote(ctrlC1)+`,"rule_id":"`+catRule+`"}`, 400, "U+009B"),
		post("isolate in frame_id", "/v1/corrections", body("frame_id", ctrlLRI), 400, "frame id contains"),
		post("newline in frame_id", "/v1/corrections", body("frame_id", "a\nb"), 400, "frame id contains a control character (U+000A"),
		post("ESC in classify text", "/v1/classify", `{"text":`+jsonQuote(ctrlESC)+`}`, 400, "U+001B"),
		post("ESC in a new rule", "/v1/rules", `{"rule_id":"user.ctrl","category":"code_style","severity":"should","text":`+jsonQuote(ctrlESC)+`}`, 400, "rule text contains a control character"),
		{name: "RLO in a rule edit", surface: viaHTTP, method: http.MethodPatch, path: "/v1/rules/" + catRule, ctype: jsonCT,
			body: []byte(`{"text":` + jsonQuote(ctrlRLO) + `}`), want: 400, msg: "rule text contains a bidirectional formatting character (U+202E"},

		cli("ESC in text", 2, "U+001B", "record", "--rule", catRule, "--text", ctrlESC),
		cli("BEL in agent output", 2, "agent output contains a control character (U+0007", "record", "--rule", catRule, "--text", "x", "--agent-output", ctrlBEL),
		cli("RLO in frame", 2, "frame id contains", "record", "--rule", catRule, "--text", "x", "--frame", ctrlRLO),
		cli("ESC in a new rule", 2, "rule text contains a control character", "rules", "add", "--rule", "user.ctrl", "--category", "code_style", "--text", ctrlESC),
		cli("ESC in classify", 2, "U+001B", "classify", ctrlESC),

		tool("ESC in text", "record_correction", map[string]any{"text": ctrlESC, "rule_id": catRule}, mcpToolError, "correction text contains a control character (U+001B"),
		tool("NUL in agent_output", "record_correction", map[string]any{"text": "x", "rule_id": catRule, "agent_output": ctrlNUL}, mcpToolError, "U+0000"),
		tool("RLO in frame_id", "record_correction", map[string]any{"text": "x", "rule_id": catRule, "frame_id": ctrlRLO}, mcpToolError, "frame id contains"),
		tool("BEL in a new rule", "add_rule", map[string]any{"rule_id": "user.ctrl", "category": "code_style", "severity": "should", "text": ctrlBEL}, mcpToolError, "rule text contains a control character"),
	}
}

// jsonQuote is s as a JSON string with every control character escaped.
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			b.WriteString(`\u00` + "0123456789abcdef"[r>>4:r>>4+1] + "0123456789abcdef"[r&15:r&15+1])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestControlCharactersRefused: the real binary refuses control and
// bidirectional formatting characters in stored text on HTTP, the CLI and
// MCP alike, and writes nothing.
func TestControlCharactersRefused(t *testing.T) {
	h := newCatalogue(t)
	for _, c := range controlCases() {
		t.Run(c.surface+"/"+c.name, func(t *testing.T) {
			before := MustDigest(t, h.db)
			got, msg := h.run(t, c)
			if got != c.want || !strings.Contains(msg, c.msg) {
				t.Errorf("got %d %q, want %d with %q", got, clip(msg), c.want, c.msg)
			}
			if after := MustDigest(t, h.db); after != before {
				t.Errorf("the database changed:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}
