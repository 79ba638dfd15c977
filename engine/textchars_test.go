package engine

import (
	"strings"
	"testing"
)

func TestCheckChars(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         string
		multiline bool
		want      string // "" = accepted, else a part of the message
	}{
		{"plain", "use rg, not grep", true, ""},
		{"tab and newline in multi-line", "line one\n\tline two", true, ""},
		{"CRLF in multi-line", "line one\r\nline two", true, ""},
		{"unicode text", "naïve café — 日本語 עברית", true, ""},
		{"directional marks", "abc\u200Edef\u200Fghi\u061C", true, ""},
		{"ESC sequence", "red \x1b[31malert", true, "(U+001B ESC (escape)) at byte 4"},
		{"BEL", "ding\a", true, "U+0007 BEL"},
		{"NUL", "a\x00b", true, "U+0000 NUL"},
		{"DEL", "a\x7fb", true, "U+007F DEL"},
		{"backspace", "abc\bd", true, "U+0008"},
		{"form feed", "a\fb", true, "U+000C"},
		{"lone CR", "safe\rEVIL", true, "U+000D CR"},
		{"CR at the end", "text\r", true, "U+000D"},
		{"C1 CSI", "a\u009b31mb", true, "U+009B CSI"},
		{"C1 NEL", "a\u0085b", true, "U+0085"},
		{"RLO", "access\u202Egnp.exe", true, "U+202E RIGHT-TO-LEFT OVERRIDE"},
		{"LRE", "a\u202Ab", true, "bidirectional formatting character (U+202A"},
		{"isolate", "a\u2066b\u2069", true, "U+2066"},
		{"tab in one line", "frame\tid", false, "U+0009 TAB"},
		{"newline in one line", "frame\nid", false, "U+000A"},
		{"CRLF in one line", "frame\r\nid", false, "U+000D"},
		{"one line plain", "frame-2025-01", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckChars("correction text", tc.s, tc.multiline)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "correction text") {
				t.Fatalf("err = %v, want EINVALID naming the field and %q", err, tc.want)
			}
		})
	}
}

// TestStoredTextRefusesControls: the validators of stored fields use the
// check (rule text, correction text, agent output, frame id).
func TestStoredTextRefusesControls(t *testing.T) {
	base := Correction{RuleID: "tool.x", Polarity: Reinforce, UserText: "use rg", At: t0}
	for _, tc := range []struct {
		name string
		edit func(c *Correction)
		want string
	}{
		{"correction text", func(c *Correction) { c.UserText = "use rg\x1b]0;pwned\a" }, "correction text"},
		{"agent output", func(c *Correction) { c.AgentOutput = "ran grep\u202E" }, "agent output"},
		{"frame id", func(c *Correction) { c.FrameID = "f1\x00" }, "frame id"},
		{"frame id newline", func(c *Correction) { c.FrameID = "f1\nf2" }, "frame id"},
		{"frame id invalid UTF-8", func(c *Correction) { c.FrameID = "f\xff" }, "frame id is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.edit(&c)
			if err := c.Validate(); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want EINVALID about %s", err, tc.want)
			}
		})
	}
	ok := base
	ok.UserText, ok.AgentOutput, ok.FrameID = "line one\r\nline two\twith a tab", "out\nput", "frame-1"
	if err := ok.Validate(); err != nil {
		t.Fatalf("a valid correction: %v", err)
	}
	r := NewRule("tool.x", "tool_preference", SeverityShould, "Never \x1b[2J clear", Scope{}, DefaultConfig(), t0)
	if err := r.Validate(); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "rule text") {
		t.Fatalf("rule text with ESC: %v", err)
	}
}
