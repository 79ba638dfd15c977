package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// minRealTop3 is a floor, not a measurement: with the real all-MiniLM-L6-v2
// an acceptable rule must be among the three best-scoring rules for at least
// nine in ten match and ambiguous corrections. Below it the embedder, the
// index or the registry's exemplars are broken, whatever the thresholds.
const minRealTop3 = 0.90

// TestRunRealModel runs the whole eval of the shipped dataset with the real
// all-MiniLM-L6-v2 on the ort backend, as `lexsona eval --embedder ort
// --model-dir .cache/models/all-MiniLM-L6-v2` does, and checks the report's
// structure and the ranking floor. The numbers themselves are printed (go
// test -v) and belong in eval/README.md. It skips, naming the folder, when
// the real model or ONNX Runtime is absent, and fails then under
// LEXSONA_REQUIRE_REAL_MODEL=1.
func TestRunRealModel(t *testing.T) {
	dir := testenv.RealModelDir(t)
	ctx := context.Background()
	emb, err := auto.Open(ctx, models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant(), CacheSize: -1})
	if err != nil {
		testenv.RealModelMissing(t, "the ort backend cannot run the real model in %s: %v (run `make ort` for ONNX Runtime)", dir, err)
	}
	defer emb.Close()
	d := MustShipped(t)
	r, err := Run(ctx, Config{Dataset: d, Embedder: emb, CalibrationDir: t.TempDir(), TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Run(ort, %s): %v", dir, err)
	}
	if r.Embedder != "ort" || !strings.HasPrefix(r.Model, models.ModelName+"@") {
		t.Errorf("embedder %q, model %q: want ort and %s@<hash>", r.Embedder, r.Model, models.ModelName)
	}
	checkReport(t, r, d)
	// The product mixes the rule-vocabulary score in; the paper's table and
	// its ablation are scored with the dense cosine alone.
	if r.Scoring == ScoringDense || r.PaperComparison.Scoring != ScoringDense || r.Ablation[0].Scoring != ScoringDense {
		t.Errorf("scoring %q, paper table %q, ablation %q: want a hybrid product and dense paper tables", r.Scoring, r.PaperComparison.Scoring, r.Ablation[0].Scoring)
	}
	if r.Ranking.Top3 < minRealTop3 {
		t.Errorf("ranking: an acceptable rule is in the top 3 for %.3f of %d items, want at least %.2f", r.Ranking.Top3, r.Ranking.Items, minRealTop3)
	}
	t.Log("\n" + reportText(r))
}
