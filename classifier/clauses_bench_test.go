package classifier

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// clauseTexts are prompts of several clauses, a correction at the end of a
// task request as people type them (each clause scored on its own).
var clauseTexts = []string{
	"Add a health check endpoint to the billing service. It should return the build version. Also stop using npm here, this repo uses pnpm.",
	"The login form loses its state on refresh.\nCan you keep the draft in local storage?\nAnd please never commit without asking me first.",
	"Rename the handler to ServeInvoice. Update its tests. Btw you keep adding emoji to commit messages, don't.",
	"Refactor the parser into two files; keep the public API. Run the tests with make test, not go test by hand.",
}

// BenchmarkClassifyClausesORT times classifying multi-clause prompts with
// the real model: the whole text and its last clauses embedded, every rule
// scored for each, and reports the median and 95th percentile latency.
func BenchmarkClassifyClausesORT(b *testing.B) {
	dir := testenv.RealModelDir(b)
	emb, err := auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant(), CacheSize: -1})
	if err != nil {
		testenv.Missing(b, testenv.RequireORTEnv, "ort backend unavailable (%v): run `make ort`", err)
	}
	defer emb.Close()
	c := New(newMemCorpus(b, nil, emb), emb, Options{})
	ctx := context.Background()
	if _, err := c.Classify(ctx, clauseTexts[0], engine.Scope{}); err != nil { // build the index
		b.Fatal(err)
	}
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := c.Classify(ctx, clauseTexts[i%len(clauseTexts)], engine.Scope{}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95_ms")
}
