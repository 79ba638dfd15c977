package eval

import (
	"bytes"
	"context"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
)

// streamFigures are the recorded figures of the held-out prompt stream
// (testdata/stream_figures.json), as `lexsona eval stream` printed them with
// the real all-MiniLM-L6-v2 when they were last measured.
type streamFigures struct {
	OrdinaryReinforced  float64 `json:"ordinary_reinforced"`
	OrdinaryInbox       float64 `json:"ordinary_inbox"`
	RightRuleOrInbox    float64 `json:"right_rule_or_inbox"`
	AgreementsCountered int     `json:"agreements_countered"`
	ContradictionsReinf float64 `json:"contradictions_reinforced"`
}

// TestStreamRealModelHoldsItsFigures sends the held-out split of the prompt
// stream through the hook's capture with the real model and checks that no
// figure got worse than the recorded one (by more than one prompt's share):
// a regression check, not a timed test. With LEXSONA_WRITE_STREAM_FIGURES=1
// it records the figures measured instead.
//
// It also replays the same prompts from their readings kept as the real
// corpus's derived figures are (quantised, without their text) and checks
// each becomes what the hook's capture made of it.
func TestStreamRealModelHoldsItsFigures(t *testing.T) {
	dir := testenv.RealModelDir(t)
	ctx := context.Background()
	emb, err := auto.Open(ctx, models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant()})
	if err != nil {
		testenv.RealModelMissing(t, "the ort backend cannot run the real model in %s: %v (run `make ort` for ONNX Runtime)", dir, err)
	}
	defer emb.Close()
	reg := registry.Default()
	test := SplitStream(mustStream(t), "test")
	rep, err := RunStream(ctx, emb, reg, test, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	WriteStreamText(&out, rep)
	t.Log("\n" + out.String())
	checkReplayAgrees(t, emb, reg, test, rep)
	got := streamFigures{rep.OrdinaryReinforced, rep.OrdinaryInbox, rep.RightRuleOrInbox, rep.AgreementsCountered, rep.ContradictionsReinf}
	want := testenv.RecordedJSON(t, "testdata/stream_figures.json", got, testenv.Required(testenv.WriteStreamFiguresEnv))
	var ordinary, fit, contradictions int
	for _, c := range rep.Cases {
		switch c.Kind {
		case CaseOrdinary:
			ordinary = c.Total
		case CaseContradiction:
			contradictions = c.Total
			fit += c.Total
		case CaseRule, CaseAgreement:
			fit += c.Total
		}
	}
	one := func(n int) float64 { return 1.0/float64(n) + 1e-9 }
	// Captured prompts never leave evidence: that is by construction, not
	// a figure to hold.
	if got.OrdinaryReinforced != 0 || got.OrdinaryInbox > want.OrdinaryInbox+one(ordinary) {
		t.Errorf("ordinary prompts leaving evidence %.4f (want 0), in the inbox %.4f (recorded %.4f)", got.OrdinaryReinforced, got.OrdinaryInbox, want.OrdinaryInbox)
	}
	if got.RightRuleOrInbox < want.RightRuleOrInbox-one(fit) {
		t.Errorf("corrections on the right rule or first in the inbox %.4f: recorded %.4f", got.RightRuleOrInbox, want.RightRuleOrInbox)
	}
	if got.AgreementsCountered > want.AgreementsCountered || got.ContradictionsReinf > want.ContradictionsReinf+one(contradictions) {
		t.Errorf("agreements countered %d, contradictions reinforced %.4f: recorded %d, %.4f", got.AgreementsCountered, got.ContradictionsReinf, want.AgreementsCountered, want.ContradictionsReinf)
	}
}

// checkReplayAgrees replays items from their kept readings and compares
// each outcome with rep's, from the hook's capture: the replay of the real
// corpus measures what the hook does only if they agree.
func checkReplayAgrees(t *testing.T, emb models.Embedder, reg *registry.Registry, items []StreamItem, rep StreamReport) {
	t.Helper()
	ctx := context.Background()
	clf, done, err := scratchClassifier(ctx, emb, reg, classifier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	var ps []DerivedPrompt
	for _, it := range items {
		p, err := derive(ctx, clf, it.ID, it.Text)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	tab := newRuleTable(rulesOf(ps))
	kept := map[string]DerivedPrompt{}
	for _, p := range ps {
		var err error
		if kept[p.SHA256], err = decodeDerived(encodeDerived(p, tab), emb.Identity().ID(), tab); err != nil {
			t.Fatal(err)
		}
	}
	caps, err := newReplayer(clf, engine.DefaultConfig()).run(ctx, items, func(it StreamItem) (DerivedPrompt, error) { return kept[it.ID], nil })
	if err != nil {
		t.Fatal(err)
	}
	var sr StreamReport
	cases := map[string]*StreamCase{}
	for _, k := range []string{CaseOrdinary, CaseRule, CaseAgreement, CaseContradiction, CaseNoRule} {
		cases[k] = &StreamCase{Kind: k, Outcomes: map[string]int{}}
	}
	differ := 0
	for i, it := range items {
		if got, want := sr.count(cases, it, caps[i]), rep.outcomes[it.ID]; got != want {
			differ++
			t.Logf("%s: replayed %q, captured %q", it.ID, got, want)
		}
	}
	t.Logf("replay from kept readings: %d of %d prompts differ from the hook's capture", differ, len(items))
	// Quantised vectors move scores by about 1e-3: a prompt on the edge of
	// the gate or of a budget may go the other way, no more than 1 in 200.
	if differ*200 > len(items) {
		t.Errorf("%d of %d prompts replayed otherwise than captured", differ, len(items))
	}
}
