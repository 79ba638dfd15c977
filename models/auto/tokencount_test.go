package auto

import (
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/models/modeltest"
)

// TestCountTokens: the ort and go backends count, per text, exactly the
// tokens Transformers.js produced for it (testdata/reference/tokens.json:
// [CLS] and [SEP] included, truncated at 256), also through the cache; the
// lexical embedder has no model tokens.
func TestCountTokens(t *testing.T) {
	ref := modeltest.MustTokenReference(t)
	texts := make([]string, len(ref.Items))
	for i, it := range ref.Items {
		texts[i] = it.Text
	}
	for _, e := range modelBackends(t, 0) {
		t.Run(e.Backend(), func(t *testing.T) {
			tc, ok := models.As[models.TokenCounter](models.NewCached(e, 16))
			if !ok {
				t.Fatalf("%T is not a models.TokenCounter through Cached", e)
			}
			got, err := tc.CountTokens(texts)
			if err != nil {
				t.Fatal(err)
			}
			for i, it := range ref.Items {
				if got[i] != len(it.InputIDs) {
					t.Errorf("text %d %.40q: %d tokens, the reference has %d", i, it.Text, got[i], len(it.InputIDs))
				}
			}
		})
	}
	if _, ok := models.As[models.TokenCounter](models.NewCached(lexical.New(0), 16)); ok {
		t.Error("the lexical embedder claims model tokens")
	}
}
