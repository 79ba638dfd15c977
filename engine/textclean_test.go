package engine

import "testing"

func TestCleanText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		removed  int
	}{
		{"plain text\nwith a line", "plain text\nwith a line", 0},
		{"tab\tkept", "tab\tkept", 0},
		{"windows\r\nline\r\nends", "windows\nline\nends", 2},
		{"a lone\rcarriage return", "a lone\ncarriage return", 1},
		{"\x1b[31merror:\x1b[0m build failed", "error: build failed", 2},
		{"\x1b[1;38;5;196mbold red\x1b[m", "bold red", 2},
		{"title\x1b]0;my terminal\x07 after", "title after", 1},
		{"osc with st \x1b]8;;http://x\x1b\\link", "osc with st link", 1},
		{"nul\x00 and bell\x07", "nul and bell", 2},
		{"trojan \u202esource", "trojan source", 1},
		{"c1 \u009b csi", "c1  csi", 1},
		{"bad utf8 \xff here", "bad utf8  here", 1},
		{"dangling escape \x1b[", "dangling escape ", 1},
		{"unterminated osc \x1b]0;keep all of this prompt", "unterminated osc 0;keep all of this prompt", 1},
		{"unterminated dcs \x1bPnever swallow the rest", "unterminated dcs never swallow the rest", 1},
		{"zero\u200bwidth\u200c \u2060hidden\ufeff words", "zerowidth hidden words", 4},
		{"", "", 0},
	} {
		got, n := CleanText(tc.in)
		if got != tc.want || n != tc.removed {
			t.Errorf("CleanText(%q) = %q, %d; want %q, %d", tc.in, got, n, tc.want, tc.removed)
		}
		if err := CheckChars("text", got, true); err != nil {
			t.Errorf("CleanText(%q) = %q still refused: %v", tc.in, got, err)
		}
	}
}
