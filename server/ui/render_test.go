package ui

import "testing"

func TestCountAgreesWithItsNumber(t *testing.T) {
	count := funcs["count"].(func(int, string, string) string)
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 rules"}, {1, "1 rule"}, {2, "2 rules"}} {
		if got := count(tt.n, "rule", "rules"); got != tt.want {
			t.Errorf("count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
