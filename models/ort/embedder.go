package ort

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"slices"

	onnxrt "github.com/yalue/onnxruntime_go"

	"github.com/lexsona/lexsona/models"
)

// Embedder is the "ort" backend: the models.Pipeline over one
// DynamicAdvancedSession shared by all callers (ONNX Runtime sessions are
// safe for concurrent Run calls).
type Embedder struct {
	p      *models.Pipeline
	g      *graph // the session that runs
	lib    string
	fused  string         // the fused graph's file when running one (see fuse.go), else ""
	folder *models.Folder // the folder and graph that run
	why    string         // why this variant runs, when it was picked for the caller
	// perText runs every text alone: set for a graph that quantizes its
	// activations on the fly (int8), whose scale spans the whole batch, so
	// that a text's vector never depends on the texts batched with it.
	perText bool
}

// newEmbedder opens folder's model with ONNX Runtime from lib. threads <= 0
// means runtime.NumCPU() intra-op threads; maxBatch <= 0 means models.DefaultMaxBatch.
// Unless noFuse, it runs the model's fused graph when one can be made (see
// fuse.go), logging on log which graph runs and why.
// A model ONNX Runtime cannot load (a corrupt or truncated model.onnx) is an
// EUNAVAILABLE error naming the model path.
func newEmbedder(folder *models.Folder, lib string, threads, maxBatch int, noFuse bool, log *slog.Logger) (*Embedder, error) {
	if _, err := Init(lib); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p, err := models.NewPipeline("ort", folder, maxBatch)
	if err != nil {
		return nil, err
	}
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	opts, err := onnxrt.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnxruntime session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(threads); err != nil {
		return nil, fmt.Errorf("onnxruntime intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("onnxruntime inter-op threads: %w", err)
	}
	e := &Embedder{p: p, lib: lib, folder: folder, perText: quantizesActivations(folder.Variant)}
	if e.perText {
		p.SetCallSize(1)
	}
	// all-MiniLM-L6-v2's export uses these names; only a model that does not
	// is loaded a second time to ask for its own.
	inputs, output := []string{"input_ids", "attention_mask", "token_type_ids"}, "last_hidden_state"
	// A variant file (model_int8.onnx, a published quantized or optimised
	// export) is run as it is: it is fused already or has no float32
	// weights for bertfuse to rebuild.
	noFuse = noFuse || folder.Variant != ""
	fusedFile := fusedPath(folder, p.Identity().SHA256)
	if fuseWanted(noFuse, inputs) {
		if e.startFusedCached(fusedFile, inputs, output, opts) {
			e.fused = fusedFile
			log.Debug("ort: running the fused graph", "model", folder.Model, "fused", fusedFile)
			return e, nil
		}
	}
	err = e.start(folder.Model, inputs, output, opts)
	if err != nil {
		ins, outs, ierr := onnxrt.GetInputOutputInfoWithOptions(folder.Model, opts)
		if ierr != nil {
			return nil, models.CorruptModel(folder.Model, ierr)
		}
		inputs2, output2, nerr := pickORTNames(folder.Model, ins, outs)
		if nerr != nil {
			return nil, nerr
		}
		if slices.Equal(inputs, inputs2) && output == output2 {
			return nil, models.CorruptModel(folder.Model, err)
		}
		if err := e.start(folder.Model, inputs2, output2, opts); err != nil {
			return nil, models.CorruptModel(folder.Model, err)
		}
		inputs, output = inputs2, output2
	}
	if !fuseWanted(noFuse, inputs) {
		return e, nil
	}
	if why := e.fuse(folder, fusedFile, output, opts); why != "" {
		log.Info("ort: running the model's graph as exported, not fused", "model", folder.Model, "why", why)
	} else {
		e.fused = fusedFile
		log.Debug("ort: fused the model's graph", "model", folder.Model, "fused", fusedFile)
	}
	return e, nil
}

// start creates the session and probes it (models.Pipeline.Probe), which
// proves the model computes and gives its width, and makes it the one that runs.
func (e *Embedder) start(model string, inputs []string, output string, opts *onnxrt.SessionOptions) error {
	sess, err := onnxrt.NewDynamicAdvancedSession(model, inputs, []string{output}, opts)
	if err != nil {
		return err
	}
	g := &graph{sess: sess, inputs: inputs}
	dim, err := e.p.Probe(context.Background(), g)
	if err != nil {
		g.Close()
		return err
	}
	g.dims = dim
	e.use(g)
	return nil
}

// use makes g the session that runs.
func (e *Embedder) use(g *graph) {
	e.g = g
	e.p.Attach(g, g.dims)
}

// Embed implements models.Embedder (models.Pipeline.Embed).
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return e.p.Embed(ctx, texts)
}

// Identity is the running graph file's: its name, variant, sha256 and width.
func (e *Embedder) Identity() models.Identity { return e.p.Identity() }

// Backend is "ort".
func (e *Embedder) Backend() string { return "ort" }

// CountTokens implements models.TokenCounter.
func (e *Embedder) CountTokens(texts []string) ([]int, error) { return e.p.CountTokens(texts) }

// Fused is the file of the fused graph that runs, "" when the model's graph
// runs as exported.
func (e *Embedder) Fused() string { return e.fused }

// LogAttrs are the slog attributes naming what runs: the model file, the
// variant (with why, when Open picked it), and the ONNX Runtime library
// with its version.
func (e *Embedder) LogAttrs() []any {
	return []any{"model", e.folder.Model, "variant", describeVariant(e.folder), variantWhy(e.why), "ort_lib", describeLib(e.lib, version())}
}

// Close destroys the session; later Embed calls fail with EUNAVAILABLE.
func (e *Embedder) Close() error { return e.p.Close() }
