package models

import "testing"

func TestBertNormalize(t *testing.T) {
	c := bertNormConfig{Type: "BertNormalizer", CleanText: true, HandleChineseChars: true, Lowercase: true}
	tests := []struct{ in, want string }{
		{"Café NAÏVE", "cafe naive"},
		{"a\u00a0b\u3000c\td", "a b c d"},
		{"x\u200by\ufeffz\x00\ufffd", "xyz"},
		{"日本", " 日  本 "},
		{"ΟΔΟΣ Σ", "οδος σ"},
		{"İstanbul", "istanbul"},
		{"한국", "\u1112\u1161\u11ab\u1100\u116e\u11a8"}, // NFD: Hangul syllables become jamo
	}
	for _, tt := range tests {
		if got := c.normalize(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
