package eval

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
)

// shippedDataset is the labelled dataset over the default pack.
const shippedDataset = "testdata/corrections.jsonl"

// MustShipped loads the shipped dataset against the default pack.
func MustShipped(tb testing.TB) *Dataset {
	tb.Helper()
	d, err := LoadDataset(shippedDataset, registry.Default())
	if err != nil {
		tb.Fatalf("LoadDataset(%s): %v", shippedDataset, err)
	}
	return d
}

// MustParseDataset parses JSONL lines against the default pack.
func MustParseDataset(tb testing.TB, lines ...string) *Dataset {
	tb.Helper()
	d, err := ParseDataset(strings.NewReader(strings.Join(lines, "\n")), "test.jsonl", nil)
	if err != nil {
		tb.Fatalf("ParseDataset: %v", err)
	}
	return d
}

// MustLexical opens an unfitted lexical embedder (Run fits it).
func MustLexical(tb testing.TB) models.Embedder {
	tb.Helper()
	e, err := auto.Open(context.Background(), models.Options{Backend: "lexical", CacheSize: -1})
	if err != nil {
		tb.Fatalf("auto.Open(lexical): %v", err)
	}
	return e
}

var (
	lexicalOnce   sync.Once
	lexicalReport Report
	lexicalErr    error
)

// MustLexicalReport runs the shipped dataset with the lexical embedder and
// the classifier's default thresholds, once per test binary.
func MustLexicalReport(tb testing.TB) Report {
	tb.Helper()
	lexicalOnce.Do(func() {
		lexicalReport, lexicalErr = Run(context.Background(), Config{
			Dataset: MustShipped(tb), Embedder: MustLexical(tb), CalibrationDir: tb.TempDir(), TempDir: tb.TempDir(),
		})
	})
	if lexicalErr != nil {
		tb.Fatalf("Run(lexical): %v", lexicalErr)
	}
	return lexicalReport
}

// item builds a scored item: kind, acceptable rules (expected first), the
// top rule and its score.
func item(id, kind string, acceptable []string, top string, score float64) Scored {
	it := Item{ID: id, Kind: kind, Acceptable: acceptable, Text: "text of " + id}
	if len(acceptable) > 0 {
		it.Expected = acceptable[0]
	}
	return Scored{Item: it, Top: top, Score: score}
}

// t0 is a fixed time for calibration files.
func t0() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }
