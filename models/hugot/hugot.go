// Package hugot is the "go" backend: all-MiniLM-L6-v2 run by hugot's
// pure-Go runtime (GoMLX simplego), without cgo or a native library. It is
// the slow fallback when ONNX Runtime is unusable.
package hugot

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	gomlxbackends "github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	hugotlib "github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
	"github.com/knights-analytics/hugot/options"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/lexsona/lexsona/models"
)

// goSeqBuckets are the padded sequence lengths the go backend compiles a
// graph for: few enough to bound its per-shape cache, fine enough that short
// texts are not padded far.
var goSeqBuckets = []int{8, 16, 24, 32, 48, 64, 96, 128, 192, models.MaxSeqLength}

// sequentialOps makes simplego, which hugot creates from the fixed config
// "go", run a graph's ops one at a time (ops_sequential): its parallel op
// scheduler has a data race (gomlx v0.26 exec.go reads a use count without
// its lock) that `go test -race` reports. Matrix products still use every
// core, so the cost is small. It runs once, before the first session.
var sequentialOps = sync.OnceFunc(func() {
	gomlxbackends.Register(simplego.BackendName, func(config string) (gomlxbackends.Backend, error) {
		return simplego.New(strings.Trim(config+",ops_sequential", ","))
	})
})

// Embedder is the "go" backend: the models.Pipeline over hugot's pure-Go
// session (GoMLX simplego) and feature-extraction pipeline, no cgo and no
// native library. Only the forward pass is hugot's; the tokenizer, batching
// and pooling are the ones the ort backend runs. It is the slow fallback
// (~9 sentences/s for MiniLM on two cores against ~350 for ort).
type Embedder struct {
	p *models.Pipeline
}

// graph is hugot's session and pipeline over one staged model: the
// models.Graph the go backend's pipeline runs.
type graph struct {
	prepMu  sync.Mutex
	session *hugotlib.Session
	pipe    *pipelines.FeatureExtractionPipeline
	stage   string
}

// Open loads folder's model into a hugot Go session. The model file
// is handed to hugot through a private staging folder holding only
// model.onnx and the tokenizer files (hugot v0.6.1 opens a model.onnx found
// in a subfolder relative to the working directory). maxBatch <= 0 means
// models.DefaultMaxBatch; a non-nil logger is warned that this is the slow
// fallback. A model hugot cannot parse is an EUNAVAILABLE error naming the
// model path (models.CorruptModel).
func Open(folder *models.Folder, maxBatch int, logger *slog.Logger) (*Embedder, error) {
	sequentialOps()
	p, err := models.NewPipeline("go", folder, maxBatch)
	if err != nil {
		return nil, err
	}
	stage, err := stageModel(folder)
	if err != nil {
		return nil, err
	}
	g := &graph{stage: stage}
	if err := g.load(folder, p); err != nil {
		g.Close()
		return nil, err
	}
	if logger != nil {
		logger.Warn("the go embedder is the slow pure-Go fallback (about 9 sentences/s on 2 cores, against about 350 with ONNX Runtime): run `make ort` or set LEXSONA_ORT_LIB to use the ort backend",
			"model", folder.Model)
	}
	return &Embedder{p: p}, nil
}

// load creates the hugot session and pipeline, with a compiled graph per
// power-of-two batch size up to the pipeline's call size, probes it and
// attaches it to p.
func (g *graph) load(folder *models.Folder, p *models.Pipeline) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = models.CorruptModel(folder.Model, fmt.Errorf("%v", r))
		}
	}()
	var batchBuckets []int
	for b := 1; b < p.CallSize(); b *= 2 {
		batchBuckets = append(batchBuckets, b)
	}
	batchBuckets = append(batchBuckets, p.CallSize())
	g.session, err = hugotlib.NewGoSession(options.WithGoMLXBatchBuckets(batchBuckets), options.WithGoMLXSequenceBuckets(goSeqBuckets))
	if err != nil {
		return fmt.Errorf("hugot go session: %w", err)
	}
	g.pipe, err = hugotlib.NewPipeline(g.session, hugotlib.FeatureExtractionConfig{
		ModelPath: g.stage, Name: "lexsona-embed", OnnxFilename: "model.onnx",
	})
	if err != nil {
		return models.CorruptModel(folder.Model, err)
	}
	dim, err := p.Probe(context.Background(), g)
	if err != nil {
		return models.CorruptModel(folder.Model, err)
	}
	p.Attach(g, dim)
	return nil
}

// stageModel makes a private folder of symlinks to folder's model file and
// tokenizer files, for hugot to load from.
func stageModel(folder *models.Folder) (string, error) {
	stage, err := os.MkdirTemp("", "lexsona-go-model-")
	if err != nil {
		return "", fmt.Errorf("staging the model for hugot: %w", err)
	}
	links := map[string]string{"model.onnx": folder.Model}
	for _, f := range []string{"tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"} {
		if _, err := os.Stat(filepath.Join(folder.Dir, f)); err == nil {
			links[f] = filepath.Join(folder.Dir, f)
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(stage, name)); err != nil {
			os.RemoveAll(stage)
			return "", fmt.Errorf("staging the model for hugot: %w", err)
		}
	}
	return stage, nil
}

// Forward runs hugot's pipeline on one padded batch. hugot hands back each
// text's attended token vectors only; they are laid out padded again,
// row-major [Size][SeqLen][dim], for the pipeline's pooling.
func (g *graph) Forward(_ context.Context, b models.Batch) ([]float32, int, error) {
	batch := backends.NewBatch(b.Size)
	batch.Input = make([]backends.TokenizedInput, b.Size)
	attended := make([]int, b.Size)
	for r := range b.Size {
		n := 0
		for _, m := range b.AttentionMask[r*b.SeqLen : (r+1)*b.SeqLen] {
			n += int(m)
		}
		attended[r] = n
		in := backends.TokenizedInput{TokenIDs: make([]uint32, n), TypeIDs: make([]uint32, n), AttentionMask: make([]uint32, n), MaxAttentionIndex: n - 1}
		for j := range n {
			in.TokenIDs[j] = uint32(b.InputIDs[r*b.SeqLen+j])
			in.TypeIDs[j] = uint32(b.TokenTypeIDs[r*b.SeqLen+j])
			in.AttentionMask[j] = 1
		}
		batch.Input[r] = in
	}
	batch.MaxSequenceLength = b.SeqLen
	// hugot writes a field of the shared model while building tensors: one at a time.
	g.prepMu.Lock()
	err := backends.CreateInputTensors(batch, g.pipe.Model, "GO")
	g.prepMu.Unlock()
	if err != nil {
		return nil, 0, fmt.Errorf("hugot input tensors: %w", err)
	}
	defer batch.Destroy()
	if err := g.pipe.Forward(batch); err != nil {
		return nil, 0, fmt.Errorf("hugot forward: %w", err)
	}
	tokens, ok := batch.OutputValues[g.pipe.OutputIndex].([][][]float32)
	if !ok || len(tokens) != b.Size {
		return nil, 0, fmt.Errorf("hugot output is %T, want token vectors for %d texts", batch.OutputValues[g.pipe.OutputIndex], b.Size)
	}
	dim := 0
	for _, toks := range tokens {
		if len(toks) > 0 {
			dim = len(toks[0])
			break
		}
	}
	hidden := make([]float32, b.Size*b.SeqLen*dim)
	for r, toks := range tokens {
		if len(toks) != attended[r] {
			return nil, 0, fmt.Errorf("hugot gave %d token vectors for a text of %d tokens", len(toks), attended[r])
		}
		for j, t := range toks {
			copy(hidden[(r*b.SeqLen+j)*dim:], t)
		}
	}
	return hidden, dim, nil
}

// Close destroys the hugot session and removes the staging folder.
func (g *graph) Close() error {
	var err error
	if g.session != nil {
		err = g.session.Destroy()
		g.session, g.pipe = nil, nil
	}
	if g.stage != "" {
		os.RemoveAll(g.stage)
		g.stage = ""
	}
	return err
}

// Embed implements models.Embedder (models.Pipeline.Embed).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.p.Embed(ctx, texts)
}

// Identity is the model file's: its name, variant, sha256 and width.
func (e *Embedder) Identity() models.Identity { return e.p.Identity() }

// Backend is "go".
func (e *Embedder) Backend() string { return "go" }

// CountTokens implements models.TokenCounter.
func (e *Embedder) CountTokens(texts []string) ([]int, error) { return e.p.CountTokens(texts) }

// Close destroys the hugot session and removes the staging folder; later
// Embed calls fail with EUNAVAILABLE.
func (e *Embedder) Close() error { return e.p.Close() }
