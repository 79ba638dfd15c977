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

	"github.com/lexsona/lexsona/engine"
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

// Embedder is the "go" backend: hugot's pure-Go session (GoMLX simplego)
// and feature-extraction pipeline, no cgo and no native library. It runs the
// same tokenizer, batching and pooling as the ort backend; only the forward
// pass is hugot's. It is the slow fallback (~9 sentences/s for MiniLM on two
// cores against ~350 for ort).
type Embedder struct {
	mu       sync.RWMutex
	prepMu   sync.Mutex
	session  *hugotlib.Session
	pipe     *pipelines.FeatureExtractionPipeline
	tok      *models.Tokenizer
	id       models.Identity
	maxBatch int
	stage    string
}

// Open loads folder's model into a hugot Go session. The model file
// is handed to hugot through a private staging folder holding only
// model.onnx and the tokenizer files (hugot v0.6.1 opens a model.onnx found
// in a subfolder relative to the working directory). maxBatch <= 0 means
// models.DefaultMaxBatch; a non-nil logger is warned that this is the slow
// fallback. A model hugot cannot parse is an EUNAVAILABLE error naming the
// model path (models.CorruptModel).
func Open(folder *models.Folder, maxBatch int, logger *slog.Logger) (*Embedder, error) {
	if maxBatch <= 0 {
		maxBatch = models.DefaultMaxBatch
	}
	sequentialOps()
	tok, err := models.LoadTokenizer(folder.Dir, models.MaxSeqLength)
	if err != nil {
		return nil, err
	}
	sum, err := models.FileSHA256(folder.Model)
	if err != nil {
		return nil, err
	}
	stage, err := stageModel(folder)
	if err != nil {
		return nil, err
	}
	e := &Embedder{tok: tok, maxBatch: maxBatch, stage: stage, id: models.Identity{Name: folder.Name, Variant: folder.Variant, SHA256: sum}}
	if err := e.load(folder); err != nil {
		e.Close()
		return nil, err
	}
	if logger != nil {
		logger.Warn("the go embedder is the slow pure-Go fallback (about 9 sentences/s on 2 cores, against about 350 with ONNX Runtime): run `make ort` or set LEXSONA_ORT_LIB to use the ort backend",
			"model", folder.Model)
	}
	return e, nil
}

func (e *Embedder) load(folder *models.Folder) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = models.CorruptModel(folder.Model, fmt.Errorf("%v", r))
		}
	}()
	var batchBuckets []int
	for b := 1; b < e.maxBatch; b *= 2 {
		batchBuckets = append(batchBuckets, b)
	}
	batchBuckets = append(batchBuckets, e.maxBatch)
	e.session, err = hugotlib.NewGoSession(options.WithGoMLXBatchBuckets(batchBuckets), options.WithGoMLXSequenceBuckets(goSeqBuckets))
	if err != nil {
		return fmt.Errorf("hugot go session: %w", err)
	}
	e.pipe, err = hugotlib.NewPipeline(e.session, hugotlib.FeatureExtractionConfig{
		ModelPath: e.stage, Name: "lexsona-embed", OnnxFilename: "model.onnx",
	})
	if err != nil {
		return models.CorruptModel(folder.Model, err)
	}
	enc, _ := e.tok.Encode("")
	b := models.PadBatch([]models.Encoding{enc})
	vecs, err := e.forward(b, []int{0})
	if err != nil {
		return models.CorruptModel(folder.Model, err)
	}
	e.id.Dims = len(vecs[0])
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

// forward runs hugot's pipeline on one padded batch and pools its
// last_hidden_state (hugot hands back the unpadded token vectors per text).
func (e *Embedder) forward(b models.Batch, idx []int) ([][]float32, error) {
	batch := backends.NewBatch(b.Size)
	batch.Input = make([]backends.TokenizedInput, b.Size)
	for r := range b.Size {
		n := 0
		for _, m := range b.AttentionMask[r*b.SeqLen : (r+1)*b.SeqLen] {
			n += int(m)
		}
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
	e.prepMu.Lock()
	err := backends.CreateInputTensors(batch, e.pipe.Model, "GO")
	e.prepMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("hugot input tensors: %w", err)
	}
	defer batch.Destroy()
	if err := e.pipe.Forward(batch); err != nil {
		return nil, fmt.Errorf("hugot forward: %w", err)
	}
	tokens, ok := batch.OutputValues[e.pipe.OutputIndex].([][][]float32)
	if !ok || len(tokens) != b.Size {
		return nil, fmt.Errorf("hugot output is %T, want token vectors for %d texts", batch.OutputValues[e.pipe.OutputIndex], b.Size)
	}
	out := make([][]float32, b.Size)
	for r, toks := range tokens {
		if len(toks) == 0 {
			return nil, engine.Errorf(engine.EINVALID, "text %d has no tokens to embed", idx[r])
		}
		dim := len(toks[0])
		flat := make([]float32, 0, len(toks)*dim)
		mask := make([]int64, len(toks))
		for j, t := range toks {
			flat = append(flat, t...)
			mask[j] = 1
		}
		v, err := models.MeanPool(flat, mask, dim, idx[r])
		if err != nil {
			return nil, err
		}
		out[r] = v
	}
	return out, nil
}

// Embed implements models.Embedder. Errors: EINVALID/EINTERNAL naming the text
// index (see MeanPool); EUNAVAILABLE when ctx is cancelled or the embedder is
// closed.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.pipe == nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the go embedder is closed")
	}
	encs, err := e.tok.EncodeBatch(texts)
	if err != nil {
		return nil, err
	}
	return models.RunSorted(ctx, encs, e.maxBatch, func(_ context.Context, idx []int, b models.Batch) ([][]float32, error) {
		return e.forward(b, idx)
	})
}

// Identity is the model file's: its name, variant, sha256 and width.
func (e *Embedder) Identity() models.Identity { return e.id }

// Backend is "go".
func (e *Embedder) Backend() string { return "go" }

// CountTokens implements models.TokenCounter.
func (e *Embedder) CountTokens(texts []string) ([]int, error) { return e.tok.CountTokens(texts) }

// Close destroys the hugot session and removes the staging folder.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var err error
	if e.session != nil {
		err = e.session.Destroy()
		e.session, e.pipe = nil, nil
	}
	if e.stage != "" {
		os.RemoveAll(e.stage)
		e.stage = ""
	}
	return err
}
