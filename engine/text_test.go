package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutAtRune(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 0, ""},
		{"héllo", 2, "h"},       // é is 2 bytes: 1..2
		{"héllo", 3, "hé"},      //
		{"a€b", 1, "a"},         // € is 3 bytes: 1..3
		{"a€b", 2, "a"},         //
		{"a€b", 3, "a"},         //
		{"a€b", 4, "a€"},        //
		{"😀x", 3, ""},           // 4 bytes
		{"😀x", 4, "😀"},          //
		{"a\xffbc", 2, "a\xff"}, // an invalid byte is one byte
		{"a\x80\x80bc", 3, "a\x80\x80"},
		{"ab\xe2\x82", 3, "ab\xe2"}, // a truncated € is invalid: its bytes count one by one
	}
	for _, tt := range tests {
		if got := CutAtRune(tt.s, tt.n); got != tt.want {
			t.Errorf("CutAtRune(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
	// Every cut of valid text is valid text, as long as possible.
	s := strings.Repeat("aé€😀", 8)
	for n := 0; n <= len(s); n++ {
		got := CutAtRune(s, n)
		if !utf8.ValidString(got) || len(got) > n || !strings.HasPrefix(s, got) {
			t.Fatalf("CutAtRune(%q, %d) = %q", s, n, got)
		}
		if next := len(got) + 1; next <= n && utf8.ValidString(s[:next]) {
			t.Fatalf("CutAtRune(s, %d) = %d bytes, but %d is a rune boundary", n, len(got), next)
		}
	}
}
