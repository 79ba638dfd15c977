package classifier

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
)

func TestBand(t *testing.T) {
	th := Thresholds{Auto: 0.85, Confirm: 0.70}
	tests := []struct {
		score float64
		want  string
	}{
		{1, DecisionAutoMatch},
		{0.85, DecisionAutoMatch},
		{float64(float32(0.85)), DecisionAutoMatch},
		{0.8499999999, DecisionAutoMatch}, // rounds to 0.85
		{0.8499, DecisionConfirm},
		{0.70, DecisionConfirm},
		{float64(float32(0.70)), DecisionConfirm}, // 0.69999998807907…
		{0.6999, DecisionNewRule},
		{0, DecisionNewRule},
		{-1, DecisionNewRule},
	}
	for _, tt := range tests {
		if got := th.Band(tt.score); got != tt.want {
			t.Errorf("Band(%v) = %s, want %s", tt.score, got, tt.want)
		}
	}
}

func TestDefaultThresholds(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Thresholds
	}{
		{"all-MiniLM-L6-v2", Thresholds{0.39, 0.30}},
		{lexical.Name, lexicalThresholds},
		{"something-else", Thresholds{0.39, 0.30}},
	} {
		if got := DefaultThresholds(models.Identity{Name: tt.name}); got != tt.want {
			t.Errorf("DefaultThresholds(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	int8 := models.Identity{Name: "all-MiniLM-L6-v2", Variant: models.VariantInt8}
	if got := DefaultThresholds(int8); got != miniLMInt8Thresholds || got != (Thresholds{0.37, 0.30}) {
		t.Errorf("DefaultThresholds(int8 all-MiniLM-L6-v2) = %v, want its own calibration 0.37/0.30", got)
	}
	if PaperThresholds != (Thresholds{0.85, 0.70}) {
		t.Errorf("PaperThresholds = %v: the paper's bands are 0.85/0.70", PaperThresholds)
	}
}

func TestDefaultTermWeight(t *testing.T) {
	for name, want := range map[string]float64{"all-MiniLM-L6-v2": 0.5, lexical.Name: 0, "something-else": 0.5} {
		if got := DefaultTermWeight(models.Identity{Name: name}); got != want {
			t.Errorf("DefaultTermWeight(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestThresholdsValidate(t *testing.T) {
	for _, tt := range []struct {
		t    Thresholds
		code string
	}{
		{Thresholds{0.85, 0.70}, ""},
		{Thresholds{0.5, 0.5}, ""},
		{Thresholds{1, 0}, ""},
		{Thresholds{0.7, 0.8}, engine.EINVALID},
		{Thresholds{1.1, 0.5}, engine.EINVALID},
		{Thresholds{0.8, -0.1}, engine.EINVALID},
	} {
		if got := engine.ErrorCode(tt.t.Validate()); got != tt.code {
			t.Errorf("%v.Validate() code %q, want %q", tt.t, got, tt.code)
		}
	}
}

// fakeRegistry is a registry whose rule i (id "r.<name>") has the single
// template "template <name>"; vectors maps each template to its vector.
func mustFakeSetup(tb testing.TB, dims int, rules map[string][]float32, opts Options) (*Classifier, *fakeEmbedder) {
	tb.Helper()
	var y strings.Builder
	y.WriteString("version: 1\nrules:\n")
	emb := &fakeEmbedder{Dims: dims, Vectors: map[string][]float32{}}
	for name, v := range rules {
		tpl := "template " + name
		fmt.Fprintf(&y, "  - rule_id: r.%s\n    category: code_style\n    severity: should\n    template: %q\n", name, tpl)
		emb.Vectors[tpl] = v
	}
	reg, err := registry.Parse([]byte(y.String()), "fake.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	if opts.TermWeight == nil { // scores are the hand-set cosines, no shared words mixed in
		opts.TermWeight = new(float64)
	}
	return New(newMemCorpus(tb, reg, emb), emb, opts), emb
}

// TestBandsEndToEnd classifies texts whose vectors sit at exact cosines from
// a rule's template: with the paper's bands, the band edges are inclusive,
// and the candidate cut at 0.5 is strict.
func TestBandsEndToEnd(t *testing.T) {
	const dims = 8
	paper := PaperThresholds
	c, emb := mustFakeSetup(t, dims, map[string][]float32{"a": basis(dims, 0), "far": basis(dims, 5)}, Options{Thresholds: &paper})
	tests := []struct {
		s        float64
		decision string
		cands    int
	}{
		{1, DecisionAutoMatch, 1},
		{0.85, DecisionAutoMatch, 1},
		{0.8499, DecisionConfirm, 1},
		{0.70, DecisionConfirm, 1},
		{0.6999, DecisionNewRule, 1},
		{0.5001, DecisionNewRule, 1},
		{0.5, DecisionNewRule, 0},
		{0.2, DecisionNewRule, 0},
	}
	for _, tt := range tests {
		text := fmt.Sprintf("correction at %v about the code", tt.s)
		emb.Vectors[text] = unitAt(dims, tt.s)
		r, err := c.Classify(context.Background(), text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Decision != tt.decision || len(r.Candidates) != tt.cands {
			t.Errorf("score %v: decision %s with %d candidates %v, want %s with %d", tt.s, r.Decision, len(r.Candidates), r.Candidates, tt.decision, tt.cands)
		}
		if tt.cands > 0 && (r.Score != RoundScore(float64(float32(tt.s))) || r.Candidates[0].RuleID != "r.a") {
			t.Errorf("score %v: got %v from %v", tt.s, r.Score, r.Candidates)
		}
		if r.Thresholds != (Thresholds{0.85, 0.70}) || r.Model != "fake@0123456789abcdef" || r.Embedder != "fake" {
			t.Errorf("result metadata %+v", r)
		}
	}
}

// TestMarginGuard: two rules equally close to a correction are ambiguous and
// go to confirm, naming the runner-up.
func TestMarginGuard(t *testing.T) {
	const dims = 8
	beta := math.Acos(0.95) - math.Acos(0.94) // b sits where the text scores 0.94 with it
	both := []float32{float32(math.Cos(beta)), float32(math.Sin(beta)), 0, 0, 0, 0, 0, 0}
	c, emb := mustFakeSetup(t, dims, map[string][]float32{"a": basis(dims, 0), "b": both}, Options{})
	emb.Vectors["use the formatter on the code"] = unitAt(dims, 0.95) // 0.95 with a, 0.94 with b
	r, err := c.Classify(context.Background(), "use the formatter on the code", engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Decision != DecisionConfirm || !strings.HasPrefix(r.Reason, ReasonAmbiguous) || r.RuleID != "r.a" {
		t.Fatalf("got %+v, want confirm (ambiguous) on r.a", r)
	}
	noGuard, _ := mustFakeSetup(t, dims, map[string][]float32{"a": basis(dims, 0), "b": both}, Options{Guard: &Guard{}})
	noGuard.emb.(*fakeEmbedder).Vectors["use the formatter on the code"] = unitAt(dims, 0.95)
	if r, _ := noGuard.Classify(context.Background(), "use the formatter on the code", engine.Scope{}); r.Decision != DecisionAutoMatch {
		t.Fatalf("without the guard: %+v, want auto_match", r)
	}
}
