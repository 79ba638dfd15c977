package auto

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/models/modeltest"
	"github.com/lexsona/lexsona/models/ort"
)

type embeddingReference struct {
	ModelSHA256 string      `json:"model_sha256"`
	Dims        int         `json:"dims"`
	Vectors     [][]float64 `json:"vectors"`
}

// modelBackends opens the tiny model with every model backend: ort (when
// ONNX Runtime is usable; see MustORTLib) running the fused graph and the
// graph as exported, and go. Vectors are uncached.
func modelBackends(t *testing.T, maxBatch int) []models.Embedder {
	t.Helper()
	dir := modeltest.MustTinyModel(t)
	var out []models.Embedder
	// A missing library leaves out (or, under LEXSONA_REQUIRE_ORT=1, fails)
	// only the ort half.
	if lib, why := modeltest.ORTUsable(t, ortUsable); why != "" {
		t.Logf("testing the go backend only: %s", why)
	} else {
		fused := mustOpen(t, models.Options{Backend: "ort", ModelDir: dir, OrtLib: lib, MaxBatch: maxBatch, CacheSize: -1})
		if fused.(*ort.Embedder).Fused() == "" {
			t.Fatal("the ort backend does not run the tiny model's fused graph")
		}
		out = append(out, fused, mustOpen(t, models.Options{Backend: "ort", ModelDir: dir, OrtLib: lib, MaxBatch: maxBatch, CacheSize: -1, NoFuse: true}))
	}
	return append(out, mustOpen(t, models.Options{Backend: "go", ModelDir: dir, MaxBatch: maxBatch, CacheSize: -1}))
}

// TestBackendsAgreeWithReference compares ort and go with Transformers.js
// (float32, onnxruntime-node) and a float64 numpy forward pass of the same
// generated model, per component.
func TestBackendsAgreeWithReference(t *testing.T) {
	texts := modeltest.ReferenceTexts(t)
	for _, name := range []string{"embeddings-tiny.json", "embeddings-tiny-f64.json"} {
		var ref embeddingReference
		modeltest.MustReadJSON(t, modeltest.Testdata(t, "reference", name), &ref)
		if len(ref.Vectors) != len(texts) {
			t.Fatalf("%s has %d vectors for %d texts", name, len(ref.Vectors), len(texts))
		}
		for _, e := range modelBackends(t, 0) {
			t.Run(name+"/"+e.Backend(), func(t *testing.T) {
				if id := e.Identity(); id.SHA256 != ref.ModelSHA256 || id.Dims != ref.Dims {
					t.Fatalf("model %+v, reference made from sha256 %s dims %d: regenerate (make fixtures)", id, ref.ModelSHA256, ref.Dims)
				}
				got := modeltest.MustEmbed(t, e, texts)
				if d := modeltest.MaxAbsDiff(got, ref.Vectors); d > 1e-5 {
					t.Errorf("max component difference %.3g, want <= 1e-5", d)
				} else {
					t.Logf("max component difference %.3g", d)
				}
			})
		}
	}
}

func TestBackendsAgreeWithEachOther(t *testing.T) {
	texts := modeltest.ReferenceTexts(t)
	bs := modelBackends(t, 0)
	want := modeltest.MustEmbed(t, bs[0], texts)
	for _, e := range bs[1:] {
		if d := modeltest.MaxAbsDiff(modeltest.MustEmbed(t, e, texts), want); d > 1e-5 {
			t.Errorf("%s and %s differ by %.3g", e.Backend(), bs[0].Backend(), d)
		}
	}
}

// TestBatchEqualsOneByOne: sorting, padding and sub-batching do not change
// a text's vector beyond 1e-6.
func TestBatchEqualsOneByOne(t *testing.T) {
	texts := modeltest.ReferenceTexts(t)[:32]
	for _, maxBatch := range []int{32, 5} {
		for _, e := range modelBackends(t, maxBatch) {
			t.Run(e.Backend(), func(t *testing.T) {
				batch := modeltest.MustEmbed(t, e, texts)
				for i, text := range texts {
					one := modeltest.MustEmbed(t, e, []string{text})
					if d := modeltest.MaxAbsDiff(one, batch[i:i+1]); d > 1e-6 {
						t.Errorf("max batch %d, text %d %q: batch and single differ by %.3g", maxBatch, i, text, d)
					}
				}
			})
		}
	}
}

func TestConcurrentEmbedding(t *testing.T) {
	texts := modeltest.ReferenceTexts(t)[:16]
	for _, e := range append(modelBackends(t, 4), lexical.New(0)) {
		t.Run(e.Backend(), func(t *testing.T) {
			want := modeltest.MustEmbed(t, e, texts)
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					in := append(append([]string(nil), texts[g:]...), texts[:g]...)
					got, err := e.Embed(context.Background(), in)
					if err != nil {
						t.Error(err)
						return
					}
					got = append(got[len(got)-g:], got[:len(got)-g]...)
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("goroutine %d: results differ:\n%s", g, d)
					}
				})
			}
			wg.Wait()
		})
	}
}

func TestEmbedAfterCloseAndCancel(t *testing.T) {
	for _, e := range modelBackends(t, 1) {
		t.Run(e.Backend(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := e.Embed(ctx, []string{"a", "b"})
			modeltest.WantErr(t, err, engine.EUNAVAILABLE, "cancelled")
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = e.Embed(context.Background(), []string{"a"})
			modeltest.WantErr(t, err, engine.EUNAVAILABLE, "closed")
			if err := e.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestEmptyBatch(t *testing.T) {
	for _, e := range append(modelBackends(t, 0), lexical.New(0)) {
		if v, err := e.Embed(context.Background(), nil); err != nil || len(v) != 0 {
			t.Errorf("%s: Embed(nil) = %v, %v", e.Backend(), v, err)
		}
	}
}

// TestCommittedTinyFixture: the gzip'd fixture in testdata (what tests use
// without `make fixtures`) is the model the references were made from.
func TestCommittedTinyFixture(t *testing.T) {
	dir := modeltest.MustTinyFromGz(t)
	var ref embeddingReference
	modeltest.MustReadJSON(t, modeltest.Testdata(t, "reference", "embeddings-tiny-f64.json"), &ref)
	e := mustOpen(t, models.Options{Backend: "go", ModelDir: dir, CacheSize: -1})
	if got := e.Identity().SHA256; got != ref.ModelSHA256 {
		t.Fatalf("testdata/tiny-model.onnx.gz unpacks to sha256 %s, the references were made from %s: regenerate (make fixtures)", got, ref.ModelSHA256)
	}
	if d := modeltest.MaxAbsDiff(modeltest.MustEmbed(t, e, modeltest.ReferenceTexts(t)), ref.Vectors); d > 1e-5 {
		t.Errorf("max component difference %.3g, want <= 1e-5", d)
	}
}
