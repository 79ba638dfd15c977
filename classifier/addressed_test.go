package classifier

import (
	"context"
	"math"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestAddressed(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"you ran npm again", true},
		{"why is there a lockfile from npm", false},
		{"why is there a lockfile from npm?", true},
		{"My repo uses pnpm", true},
		{"we're on pnpm here", true},
		{"I’m reading this in a tty", true},
		{"`npm i` is the wrong client", true},
		{"the settings page should remember the theme", false},
		{"pnpm only", false},
		{"your", true},
		{"yours truly", true},
		{"youth league scores", false},
		{"mime types", false},
		{"dates in US format, i.e. month first", false},
		{"spell it the U.S. way, e.g. color", false},
		{"let us keep US spelling", true},
	} {
		if got := Addressed(tt.text); got != tt.want {
			t.Errorf("Addressed(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestClassifyAddressedBoost: with the rule-vocabulary score mixed in, an
// addressed correction scores every rule AddressedBoost higher than the same
// words said impersonally (a question mark changes neither the lexical
// vector nor the words); dense-only scoring adds nothing.
func TestClassifyAddressedBoost(t *testing.T) {
	zero := Thresholds{}
	half := 0.5
	for _, tt := range []struct {
		name string
		tw   *float64
		want float64
	}{
		{"with the term score", &half, AddressedBoost},
		{"dense only", DenseOnly(), 0},
	} {
		c, _ := MustDefaultClassifier(t, Options{Thresholds: &zero, TermWeight: tt.tw, K: 3})
		plain, err := c.Classify(context.Background(), "stop editing files with sed", engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		asked, err := c.Classify(context.Background(), "stop editing files with sed?", engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range plain.Candidates {
			p, a := plain.Candidates[i], asked.Candidates[i]
			if p.RuleID != a.RuleID || math.Abs(a.Score-p.Score-tt.want) > 1e-9 {
				t.Errorf("%s: candidate %d: %s %.6f plain, %s %.6f asked; want the same rule, %.2f higher", tt.name, i, p.RuleID, p.Score, a.RuleID, a.Score, tt.want)
			}
		}
	}
}
