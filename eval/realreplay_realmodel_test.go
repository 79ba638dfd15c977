package eval

import (
	"bytes"
	"context"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
)

// realFigures are the recorded figures of the real corpus's held-out
// repositories (testdata/real_figures.json).
type realFigures struct {
	Ordinary         int            `json:"ordinary"`
	OrdinaryInbox    int            `json:"ordinary_inbox"`
	EnglishOrdinary  int            `json:"english_ordinary"`
	EnglishInbox     int            `json:"english_ordinary_inbox"`
	Fit              int            `json:"fit"`
	RightFirst       int            `json:"right_first"`
	Contradictions   int            `json:"contradictions"`
	Misses           map[string]int `json:"misses"`
	OrdinaryInboxCI  Interval       `json:"ordinary_inbox_ci"`
	RightRuleOrInbox Interval       `json:"right_rule_or_inbox_ci"`
	StanceDisagree   int            `json:"stance_disagree"`
}

// mustRealModel opens the real all-MiniLM-L6-v2 on the ort backend, or
// skips (fails under LEXSONA_REQUIRE_REAL_MODEL=1).
func mustRealModel(t *testing.T) models.Embedder {
	t.Helper()
	dir := testenv.RealModelDir(t)
	emb, err := auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant()})
	if err != nil {
		testenv.RealModelMissing(t, "the ort backend cannot run the real model in %s: %v (run `make ort` for ONNX Runtime)", dir, err)
	}
	t.Cleanup(func() { emb.Close() })
	return emb
}

func figuresOf(rep RealReport) realFigures {
	f := realFigures{Misses: rep.Misses, OrdinaryInboxCI: rep.CI.OrdinaryInbox, RightRuleOrInbox: rep.CI.RightRuleOrInbox, StanceDisagree: rep.StanceDisagree}
	for _, r := range rep.Repos {
		f.Ordinary, f.OrdinaryInbox, f.Fit, f.RightFirst = f.Ordinary+r.Ordinary, f.OrdinaryInbox+r.OrdinaryInbox, f.Fit+r.Fit, f.RightFirst+r.RightFirst
		f.EnglishOrdinary, f.EnglishInbox = f.EnglishOrdinary+r.EnglishOrdinary, f.EnglishInbox+r.EnglishOrdinaryInbox
	}
	for _, c := range rep.Stream.Cases {
		if c.Kind == CaseContradiction {
			f.Contradictions = c.Total
		}
	}
	return f
}

// TestRealPromptsHeldOut replays the real corpus's held-out repositories
// from their derived figures through the hook's capture decision with the
// real model, checks what holds by construction (no evidence from a
// captured prompt, so no ordinary prompt recorded, no contradiction
// reinforced, no wrong-rule recording), and compares the figures with
// testdata/real_figures.json (LEXSONA_WRITE_REAL_FIGURES=1 records them).
func TestRealPromptsHeldOut(t *testing.T) {
	emb := mustRealModel(t)
	rc, err := LoadRealCorpus("realprompts")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ReplayReal(context.Background(), emb, registry.Default(), registry.DefaultYAML(), rc, RealOptions{Side: RealTest})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	WriteRealText(&out, rep)
	t.Log("\n" + out.String())
	for _, c := range rep.Stream.Cases {
		for _, o := range []string{OutReinforcement, OutCounter, OutRight, OutWrongPolarity, OutWrongRule, OutProposed} {
			if n := c.Outcomes[o]; n > 0 {
				t.Errorf("%s: %d recorded as %q: a captured prompt is only ever a suggestion", c.Kind, n, o)
			}
		}
	}
	got := figuresOf(rep)
	want := testenv.RecordedJSON(t, "testdata/real_figures.json", got, testenv.Required(testenv.WriteRealFiguresEnv))
	// One prompt either way: ONNX Runtime's sums may differ in the last
	// bits on another machine.
	if got.Ordinary != want.Ordinary || got.Fit != want.Fit || abs(got.OrdinaryInbox-want.OrdinaryInbox) > 1 || abs(got.RightFirst-want.RightFirst) > 1 ||
		got.EnglishOrdinary != want.EnglishOrdinary || abs(got.EnglishInbox-want.EnglishInbox) > 1 {
		t.Errorf("held out: ordinary in the inbox %d/%d (English %d/%d), right rule first %d/%d; recorded %d/%d (%d/%d), %d/%d",
			got.OrdinaryInbox, got.Ordinary, got.EnglishInbox, got.EnglishOrdinary, got.RightFirst, got.Fit,
			want.OrdinaryInbox, want.Ordinary, want.EnglishInbox, want.EnglishOrdinary, want.RightFirst, want.Fit)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
