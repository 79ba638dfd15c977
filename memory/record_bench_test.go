package memory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// benchCorrections alternate between paraphrases of default-pack rules
// (auto_match or confirm: evidence on the rule) and requests no rule covers
// (new_rule: a candidate rule with its vectors).
var benchCorrections = []string{
	"stop using sed to edit files, use the edit tool",
	"use pnpm, not npm, in this repo",
	"please add a unit test for the parser change",
	"don't force push to main",
	"rename the handler to something that says what it serves",
	"never commit the .env file",
}

// BenchmarkRecord is the correction throughput of one memory through the
// whole use case, serially: validate, redact, classify (lexical embedder),
// decide and write to a SQLite file in one transaction.
func BenchmarkRecord(b *testing.B) {
	mem, _ := MustDefaultService(b, Options{})
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		text := fmt.Sprintf("%s (take %d)", benchCorrections[i%len(benchCorrections)], i)
		if _, _, err := mem.Record(ctx, engine.Correction{UserText: text, At: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassify is the latency of classifying one correction without
// writing anything (lexical embedder, the default pack).
func BenchmarkClassify(b *testing.B) {
	mem, _ := MustDefaultService(b, Options{})
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if _, err := mem.Classify(ctx, benchCorrections[i%len(benchCorrections)], engine.Scope{}); err != nil {
			b.Fatal(err)
		}
	}
}
