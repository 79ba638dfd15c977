package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/server/servertest"
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
	e, _ := newFakeEnv(t, func(c *Config) { c.Embedder = emb }, &servertest.Memory{}, nil)
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

// TestEmbeddingsRoute: POST /v1/embeddings embeds with the model of the
// memory (a fake: the route uses no other use case).
func TestEmbeddingsRoute(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	const rt = "/v1/embeddings"
	items := func(n int, base64 bool) func(*testing.T, response) {
		return func(t *testing.T, r response) {
			var out struct {
				Object string
				Data   []struct {
					Object    string
					Index     int
					Embedding any
				}
				Model string
				Usage EmbeddingUsage
			}
			r.json(t, &out)
			if out.Object != "list" || len(out.Data) != n || out.Usage.TotalTokens == 0 || out.Model == "" {
				t.Fatalf("embeddings: %.300s", r.body)
			}
			for i, d := range out.Data {
				if d.Index != i || d.Object != "embedding" {
					t.Errorf("item %d: %+v", i, d)
				}
				_, isStr := d.Embedding.(string)
				if isStr != base64 {
					t.Errorf("item %d: embedding is %T", i, d.Embedding)
				}
				if v, ok := d.Embedding.([]any); ok && len(v) != e.emb.Identity().Dims {
					t.Errorf("item %d: %d dims", i, len(v))
				}
			}
		}
	}
	id := e.emb.Identity()
	runCases(t, e, []routeCase{
		{"string", post(rt, `{"input":"stop using sed"}`), rt, 200, "", "", items(1, false)},
		{"array", post(rt, `{"input":["stop using sed","pnpm not npm","use rg"],"model":"`+id.Name+`","user":"u1"}`), rt, 200, "", "", items(3, false)},
		{"base64", post(rt, `{"input":["a b c"],"encoding_format":"base64"}`), rt, 200, "", "", items(1, true)},
		{"dimensions", post(rt, fmt.Sprintf(`{"input":"x y","dimensions":%d}`, id.Dims)), rt, 200, "", "", items(1, false)},
		{"missing input", post(rt, `{"model":"x"}`), rt, 400, "invalid", `"input" is required`, nil},
		{"empty array", post(rt, `{"input":[]}`), rt, 400, "invalid", "empty array", nil},
		{"token array", post(rt, `{"input":[1,2,3]}`), rt, 400, "invalid", "token arrays are not supported", nil},
		{"number", post(rt, `{"input":5}`), rt, 400, "invalid", "string or an array of strings", nil},
		{"empty text", post(rt, `{"input":["ok",""]}`), rt, 400, "invalid", "input text 1 is empty", nil},
		{"other model", post(rt, `{"input":"x","model":"text-embedding-3-small"}`), rt, 400, "invalid", "not served here", nil},
		{"other dimensions", post(rt, `{"input":"x","dimensions":3}`), rt, 400, "invalid", "dimensions", nil},
		{"bad encoding", post(rt, `{"input":"x","encoding_format":"int8"}`), rt, 400, "invalid", "encoding_format", nil},
		{"too many", post(rt, `{"input":[`+strings.Repeat(`"a",`, MaxEmbeddingInputs)+`"a"]}`), rt, 413, "too_large", "2048", nil},
	})
}
