package memory

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// TestRecordStoresEmbedVectors: a new rule recorded through the lexical
// embedder's sparse path gets, for its template, exactly the vectors Embed
// gives (the dense form of the sparse query is made only then), plain and
// hybrid.
func TestRecordStoresEmbedVectors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		opts func(models.Embedder) classifier.Options
	}{
		{"plain", func(models.Embedder) classifier.Options { return classifier.Options{} }},
		{"hybrid", func(l models.Embedder) classifier.Options { return classifier.Options{Lexical: l, LexicalWeight: 0.3} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenStore(t)
			emb := MustLexical(t, nil)
			MustSync(t, db, emb, nil)
			s := New(db, emb, Options{Classifier: tt.opts(emb)})
			text := "the quokka enclosure needs repainting in teal"
			resp := MustRecord(t, s, engine.Correction{UserText: text})
			if resp.Decision != classifier.DecisionNewRule {
				t.Fatalf("decision %s, want new_rule", resp.Decision)
			}
			want, err := emb.Embed(ctx, []string{text})
			if err != nil {
				t.Fatal(err)
			}
			stored, err := db.LoadEmbeddings(ctx, emb.Identity().ID())
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range stored {
				if e.RuleID == resp.RuleID {
					n++
					if d := cmp.Diff(want[0], e.Vector); d != "" {
						t.Errorf("stored vector differs from Embed's (-want +got):\n%s", d)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d vectors stored for %s, want 1", n, resp.RuleID)
			}
		})
	}
}
