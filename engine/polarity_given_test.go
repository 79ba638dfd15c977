package engine

import "testing"

func TestParseGivenPolarity(t *testing.T) {
	tests := []struct {
		in   int
		out  Polarity
		want string
		msg  string
	}{
		{1, Reinforce, "", ""},
		{-1, Counter, "", ""},
		{0, 0, EINVALID, "polarity 0: want 1 (reinforcement) or -1 (counterexample)"},
		{2, 0, EINVALID, "polarity 2: want 1 (reinforcement) or -1 (counterexample)"},
		{-2, 0, EINVALID, "polarity -2: want 1 (reinforcement) or -1 (counterexample)"},
	}
	for _, tt := range tests {
		got, err := ParseGivenPolarity(tt.in)
		checkErr(t, "ParseGivenPolarity", err, tt.want, tt.msg)
		if got != tt.out {
			t.Errorf("ParseGivenPolarity(%d) = %d, want %d", tt.in, got, tt.out)
		}
	}
}
