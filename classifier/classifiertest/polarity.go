package classifiertest

import (
	"testing"

	"github.com/lexsona/lexsona/registry"
)

// Polarity is the two-rule fixture the polarity tests share: r.a
// ("template a" on e0, its contrary phrasing "contrary a" on e1) and r.b
// ("template b" on e2, no contrary phrasing), with an embedder of
// hand-set vectors for the corrections the tests send. Scores are plain
// cosines of these vectors.
func Polarity(tb testing.TB) (*registry.Registry, *FakeEmbedder) {
	tb.Helper()
	const dims = 4
	reg, err := registry.Parse([]byte(`version: 1
rules:
  - {rule_id: r.a, category: code_style, severity: should, template: "template a", contrary: ["contrary a"]}
  - {rule_id: r.b, category: code_style, severity: should, template: "template b"}
`), "polarity.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return reg, &FakeEmbedder{Dims: dims, Vectors: map[string][]float32{
		"template a": Basis(dims, 0), "contrary a": Basis(dims, 1), "template b": Basis(dims, 2),
		"reinforcing text":                          Basis(dims, 0),
		"contrary wording here":                     Basis(dims, 1),
		"npm is fine here":                          {0.8, 0.6, 0, 0}, // a cue, but closer to the template
		"CORRECT[r.a]: npm is fine here":            {0.8, 0.6, 0, 0},
		"no need for contrary wording, b is fine":   {0, 0.6, 0.8, 0}, // a cue on a rule without contrary phrasings
		"plain words naming rule b":                 Basis(dims, 2),
		"halfway between template a and contrary a": {0.7, 0.714, 0, 0},
	}}
}
