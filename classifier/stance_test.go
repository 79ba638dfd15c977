package classifier

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

// The shipped stance model fits this build's features.
func TestDefaultStance(t *testing.T) {
	m, err := DefaultStance()
	if err != nil {
		t.Fatal(err)
	}
	if m == nil || !slices.Equal(m.Features, StanceFeatureNames()) {
		t.Fatalf("shipped stance model %+v", m)
	}
}

// Where the learned stance reads a captured prompt the other way from the
// rule-based reading, the suggestion's direction is marked unsure and the
// reason says so; where they agree, nothing is marked.
func TestCaptureDirectionUnsure(t *testing.T) {
	n := len(StanceFeatureNames()) + 1
	always := func(bias float64) *StanceModel {
		w := make([]float64, n)
		w[0] = bias
		return &StanceModel{Features: StanceFeatureNames(), Weights: w}
	}
	text := "stop using sed to edit files, use the edit tool"
	for _, tt := range []struct {
		name   string
		model  *StanceModel
		unsure bool
	}{{"reads a contradiction", always(10), true}, {"reads support", always(-10), false}} {
		c, _ := MustDefaultClassifier(t, Options{Stance: tt.model})
		cl, err := c.Capture(context.Background(), text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if cl.Polarity != engine.Reinforce || len(cl.Candidates) == 0 {
			t.Fatalf("%s: polarity %v, %d candidates: want a reinforcement of a rule", tt.name, cl.Polarity, len(cl.Candidates))
		}
		if cl.DirectionUnsure != tt.unsure || strings.Contains(cl.Reason, "direction unsure") != tt.unsure {
			t.Errorf("%s: unsure %v, reason %q; want unsure %v", tt.name, cl.DirectionUnsure, cl.Reason, tt.unsure)
		}
	}
}

// A capture floor outside [-1, 1] is refused; a lower one gives a captured
// prompt candidates its band would not.
func TestCaptureFloor(t *testing.T) {
	bad := 2.0
	c, _ := MustDefaultClassifier(t, Options{CaptureFloor: &bad})
	if engine.ErrorCode(c.Err()) != engine.EINVALID {
		t.Errorf("floor 2: err %v, want EINVALID", c.Err())
	}
	low := -1.0
	c, _ = MustDefaultClassifier(t, Options{CaptureFloor: &low})
	cl, err := c.Capture(context.Background(), "the weather is nice today in the park", engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.Candidates) == 0 {
		t.Errorf("floor -1: no candidates, want the nearest rules")
	}
}
