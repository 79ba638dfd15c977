package server

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// MustTinyGoEmbedder opens the pure-Go backend on the tiny generated model
// (.cache/models/tiny, written by `make fixtures`, which `make test` runs);
// it skips, naming the command, when the fixture is missing.
func MustTinyGoEmbedder(tb testing.TB) (models.Embedder, string) {
	tb.Helper()
	dir := filepath.Join(testenv.RepoRoot(tb), ".cache", "models", "tiny")
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		tb.Skipf("no tiny model at %s: run `make fixtures`", dir)
	}
	e, err := auto.Open(context.Background(), models.Options{Backend: "go", ModelDir: dir, Logger: discardLogger()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e, dir
}

// With a model, usage counts the model's own tokens (through the
// micro-batcher and the cache): the tokenizer's count per text, [CLS] and
// [SEP] included, truncated at 256.
func TestEmbeddingsUsageCountsModelTokens(t *testing.T) {
	emb, dir := MustTinyGoEmbedder(t)
	e := newTestEnv(t, func(c *Config) { c.Embedder = emb })
	tok, err := models.LoadTokenizer(dir, models.MaxSeqLength)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 300) // 302 tokens before truncation
	texts := []string{"stop using sed", "pnpm, not npm — déjà vu", long}
	want, estimate := 0, 0
	for _, s := range texts {
		enc, err := tok.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		want += enc.Len()
		estimate += engine.EstimateTokens(s)
	}
	if last, _ := tok.Encode(long); last.Len() != models.MaxSeqLength || want == estimate {
		t.Fatalf("bad fixture: the long text has %d tokens (want %d); model count %d vs estimate %d", last.Len(), models.MaxSeqLength, want, estimate)
	}
	body, _ := json.Marshal(map[string]any{"input": texts})
	r := e.post("/v1/embeddings", string(body))
	mustStatus(t, r, http.StatusOK)
	var out EmbeddingsResponse
	r.json(t, &out)
	if out.Usage.PromptTokens != want || out.Usage.TotalTokens != want {
		t.Errorf("usage %+v, want %d model tokens (the byte estimate would be %d)", out.Usage, want, estimate)
	}
}
