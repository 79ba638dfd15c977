package auto

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/models/modeltest"
)

// BenchmarkEmbed: BenchmarkEmbed/<text set>/<backend>/batch<N>. ort runs the
// fused graph (see the ort package); ort-unfused the graph as exported, which is
// what Transformers.js runs.
func BenchmarkEmbed(b *testing.B) {
	dir := modeltest.MustFullModel(b)
	type backend struct {
		name string
		o    models.Options
	}
	var backends []backend
	if lib, why := modeltest.ORTUsable(b, ortUsable); why != "" {
		b.Logf("no ort benchmarks: %s", why)
	} else {
		backends = append(backends, backend{"ort", models.Options{Backend: "ort", OrtLib: lib}}, backend{"ort-unfused", models.Options{Backend: "ort", OrtLib: lib, NoFuse: true}})
	}
	backends = append(backends, backend{"go", models.Options{Backend: "go"}}, backend{"lexical", models.Options{Backend: "lexical"}})
	for _, set := range modeltest.BenchTextSets {
		b.Run(set.Name, func(b *testing.B) {
			for _, be := range backends {
				b.Run(be.name, func(b *testing.B) {
					o := be.o
					o.ModelDir, o.CacheSize = dir, -1
					e := mustOpen(b, o)
					texts := modeltest.BenchTexts(b, set.File)
					if l, ok := e.(*lexical.Embedder); ok {
						texts = slices.DeleteFunc(slices.Clone(texts), func(s string) bool { // blank texts are errors
							_, err := l.Embed(context.Background(), []string{s})
							return err != nil
						})
						l.Fit(texts)
					}
					for _, size := range []int{1, 32} {
						b.Run(fmt.Sprintf("batch%d", size), func(b *testing.B) {
							modeltest.RunBench(b, modeltest.BenchBatches(texts, size), func(batch []string) error {
								_, err := e.Embed(context.Background(), batch)
								return err
							})
						})
					}
				})
			}
		})
	}
}
