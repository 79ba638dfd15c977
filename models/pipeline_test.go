package models_test

import (
	"context"
	"math"
	"sync/atomic"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// idGraph is a forward pass whose token vector is a function of the token
// id alone, with NaN in every padding row: a text's pooled vector is then
// fixed by its tokens, whatever it is batched with, and any padding row that
// reached the pooling would show.
type idGraph struct {
	calls, maxRows atomic.Int64
	closed         atomic.Bool
}

const idDims = 4

func (g *idGraph) Forward(_ context.Context, b models.Batch) ([]float32, int, error) {
	g.calls.Add(1)
	if n := int64(b.Size); n > g.maxRows.Load() {
		g.maxRows.Store(n)
	}
	hidden := make([]float32, b.Size*b.SeqLen*idDims)
	for i, id := range b.InputIDs {
		for k := range idDims {
			v := float32(math.NaN())
			if b.AttentionMask[i] == 1 {
				v = float32((id+int64(k))%7 + 1)
			}
			hidden[i*idDims+k] = v
		}
	}
	return hidden, idDims, nil
}

func (g *idGraph) Close() error { g.closed.Store(true); return nil }

// pipelineEmbedder is a Pipeline with the Backend it lacks.
type pipelineEmbedder struct{ *models.Pipeline }

func (pipelineEmbedder) Backend() string { return "test" }

// mustPipeline is a Pipeline over idGraph for the tiny model's folder.
func mustPipeline(t *testing.T, callSize int) (pipelineEmbedder, *idGraph) {
	t.Helper()
	folder, err := models.ResolveFolder(modeltest.MustTinyModel(t), "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := models.NewPipeline("test", folder, callSize)
	if err != nil {
		t.Fatal(err)
	}
	g := &idGraph{}
	dim, err := p.Probe(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	p.Attach(g, dim)
	return pipelineEmbedder{p}, g
}

// TestPipelineEmbed: vectors come back in input order, each the same alone
// and batched with texts of other lengths, padding never pooled, no call
// larger than the call size; the identity carries the probed width.
func TestPipelineEmbed(t *testing.T) {
	texts := []string{"use pnpm, not npm", "hi", "never force-push to main; open a pull request", "", "hi"}
	for _, callSize := range []int{1, 2, 32} {
		p, g := mustPipeline(t, callSize)
		if p.Identity().Dims != idDims || p.Identity().SHA256 == "" {
			t.Fatalf("identity %+v: want dims %d and the model's sha256", p.Identity(), idDims)
		}
		all := modeltest.MustEmbed(t, p, texts)
		for i, text := range texts {
			alone := modeltest.MustEmbed(t, p, []string{text})
			if d := modeltest.MaxAbsDiff(alone, all[i:i+1]); d != 0 {
				t.Errorf("call size %d: text %d embedded alone differs by %g", callSize, i, d)
			}
		}
		if d := modeltest.MaxAbsDiff(all[1:2], all[4:5]); d != 0 {
			t.Errorf("call size %d: the same text twice differs by %g", callSize, d)
		}
		if g.maxRows.Load() > int64(callSize) {
			t.Errorf("call size %d: a forward call got %d rows", callSize, g.maxRows.Load())
		}
	}
}

// TestPipelineClose: Close closes the graph once; Embed afterwards is
// EUNAVAILABLE naming the backend.
func TestPipelineClose(t *testing.T) {
	p, g := mustPipeline(t, 0)
	if p.CallSize() != models.DefaultMaxBatch {
		t.Errorf("call size %d, want the default %d", p.CallSize(), models.DefaultMaxBatch)
	}
	if err := p.Close(); err != nil || !g.closed.Load() {
		t.Fatalf("Close: %v, graph closed %v", err, g.closed.Load())
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, err := p.Embed(context.Background(), []string{"hi"})
	modeltest.WantErr(t, err, engine.EUNAVAILABLE, "test embedder is closed")
}
