package models

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lexsona/lexsona/engine"
)

// ortState is the process-wide ONNX Runtime environment: initialised once,
// from one library, and never destroyed.
var ortState struct {
	sync.Mutex
	lib, version string
}

// initORT makes sure ONNX Runtime is initialised from lib and returns its
// version. A library that is missing, unusable or too old is an EUNAVAILABLE
// error naming the path (see ProbeORTLib); so is asking for a second library
// once one is loaded.
func initORT(lib string) (string, error) {
	version, err := ProbeORTLib(lib)
	if err != nil {
		return "", err
	}
	ortState.Lock()
	defer ortState.Unlock()
	if ort.IsInitialized() {
		if ortState.lib != "" && !sameFile(ortState.lib, lib) {
			return "", engine.Errorf(engine.EUNAVAILABLE,
				"ONNX Runtime is already loaded from %s in this process and cannot also be loaded from %s: use one library (LEXSONA_ORT_LIB)", ortState.lib, lib)
		}
		return ort.GetVersion(), nil
	}
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return "", engine.Errorf(engine.EUNAVAILABLE, "cannot initialise ONNX Runtime %s from %s: %v; %s", version, lib, err, ortHint)
	}
	ortState.lib, ortState.version = lib, version
	return version, nil
}

// ortVersion is the version of the loaded ONNX Runtime, "" before initORT.
func ortVersion() string {
	ortState.Lock()
	defer ortState.Unlock()
	return ortState.version
}

func sameFile(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return ra == rb
}

// ortEmbedder is the "ort" backend: one DynamicAdvancedSession shared by all
// callers (ONNX Runtime sessions are safe for concurrent Run calls).
type ortEmbedder struct {
	mu       sync.RWMutex // Close takes it for writing; Embed for reading
	sess     *ort.DynamicAdvancedSession
	tok      *Tokenizer
	id       Identity
	inputs   []string // the model's inputs, in the order tensors are passed
	maxBatch int
	lib      string
	fused    string // the fused graph's file when running one (see ortfuse.go), else ""
	// perText runs every text alone: set for a graph that quantizes its
	// activations on the fly (int8), whose scale spans the whole batch, so
	// that a text's vector never depends on the texts batched with it.
	perText bool
}

// newORTEmbedder opens folder's model with ONNX Runtime from lib. threads <= 0
// means runtime.NumCPU() intra-op threads; maxBatch <= 0 means DefaultMaxBatch.
// Unless noFuse, it runs the model's fused graph when one can be made (see
// ortfuse.go), logging on log which graph runs and why.
// A model ONNX Runtime cannot load (a corrupt or truncated model.onnx) is an
// EUNAVAILABLE error naming the model path.
func newORTEmbedder(folder *modelFolder, lib string, threads, maxBatch int, noFuse bool, log *slog.Logger) (*ortEmbedder, error) {
	if _, err := initORT(lib); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tok, err := LoadTokenizer(folder.Dir, MaxSeqLength)
	if err != nil {
		return nil, err
	}
	sum, err := fileSHA256(folder.Model)
	if err != nil {
		return nil, err
	}
	if threads <= 0 {
		threads = runtime.NumCPU()
	}
	opts, err := ort.NewSessionOptions()
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
	e := &ortEmbedder{tok: tok, maxBatch: maxBatch, lib: lib, id: Identity{Name: folder.Name, Variant: folder.Variant, SHA256: sum},
		perText: quantizesActivations(folder.Variant)}
	// all-MiniLM-L6-v2's export uses these names; only a model that does not
	// is loaded a second time to ask for its own.
	inputs, output := []string{"input_ids", "attention_mask", "token_type_ids"}, "last_hidden_state"
	// A variant file (model_int8.onnx, a published quantized or optimised
	// export) is run as it is: it is fused already or has no float32
	// weights for bertfuse to rebuild.
	noFuse = noFuse || folder.Variant != ""
	fusedFile := fusedPath(folder, sum)
	if fuseWanted(noFuse, inputs) {
		e.inputs = inputs
		if e.startFusedCached(fusedFile, output, opts) {
			e.fused = fusedFile
			log.Debug("ort: running the fused graph", "model", folder.Model, "fused", fusedFile)
			return e, nil
		}
	}
	err = e.start(folder.Model, inputs, output, opts)
	if err != nil {
		ins, outs, ierr := ort.GetInputOutputInfoWithOptions(folder.Model, opts)
		if ierr != nil {
			return nil, corruptModel(folder.Model, ierr)
		}
		inputs2, output2, nerr := pickORTNames(folder.Model, ins, outs)
		if nerr != nil {
			return nil, nerr
		}
		if slices.Equal(inputs, inputs2) && output == output2 {
			return nil, corruptModel(folder.Model, err)
		}
		if err := e.start(folder.Model, inputs2, output2, opts); err != nil {
			return nil, corruptModel(folder.Model, err)
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

// start creates the session and runs it once on [CLS] [SEP], which proves
// the model computes and gives its width.
func (e *ortEmbedder) start(model string, inputs []string, output string, opts *ort.SessionOptions) error {
	sess, err := ort.NewDynamicAdvancedSession(model, inputs, []string{output}, opts)
	if err != nil {
		return err
	}
	e.sess, e.inputs, e.id.Dims = sess, inputs, 0
	enc, _ := e.tok.Encode("")
	b := PadBatch([]Encoding{enc})
	hidden, dim, err := e.runSession(context.Background(), sess, b)
	if err == nil {
		_, err = MeanPool(hidden, b.AttentionMask, dim, 0)
	}
	if err != nil {
		sess.Destroy()
		e.sess = nil
		return err
	}
	e.id.Dims = dim
	return nil
}

// pickORTNames chooses a model's BERT inputs and its token-embeddings output.
func pickORTNames(model string, ins, outs []ort.InputOutputInfo) ([]string, string, error) {
	var inputs []string
	for _, in := range ins {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			inputs = append(inputs, in.Name)
		default:
			return nil, "", engine.Errorf(engine.EUNAVAILABLE, "the model %s has an input %q a BERT sentence encoder does not have: use all-MiniLM-L6-v2's onnx/model.onnx", model, in.Name)
		}
	}
	if !slices.Contains(inputs, "input_ids") {
		return nil, "", engine.Errorf(engine.EUNAVAILABLE, "the model %s has no input_ids input: use all-MiniLM-L6-v2's onnx/model.onnx", model)
	}
	output := ""
	for _, o := range outs {
		if o.Name == "last_hidden_state" || (output == "" && len(o.Dimensions) == 3) {
			output = o.Name
		}
	}
	if output == "" {
		return nil, "", engine.Errorf(engine.EUNAVAILABLE, "the model %s has no last_hidden_state output: use all-MiniLM-L6-v2's onnx/model.onnx", model)
	}
	return inputs, output, nil
}

func corruptModel(path string, err error) error {
	return engine.Errorf(engine.EUNAVAILABLE, "cannot load the model %s: %v; the file is corrupt or not a sentence-transformers ONNX export: delete it and run `lexsona model pull`", path, err)
}

// run runs the session on one padded batch and returns last_hidden_state,
// row-major [Size][SeqLen][dim], and dim. Cancelling ctx terminates the run.
func (e *ortEmbedder) run(ctx context.Context, b Batch) ([]float32, int, error) {
	return e.runSession(ctx, e.sess, b)
}

// runSession is run on a given session (the fused graph's check runs two).
func (e *ortEmbedder) runSession(ctx context.Context, sess *ort.DynamicAdvancedSession, b Batch) ([]float32, int, error) {
	shape := ort.NewShape(int64(b.Size), int64(b.SeqLen))
	values := make([]ort.Value, len(e.inputs))
	defer func() {
		for _, v := range values {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, name := range e.inputs {
		data := b.InputIDs
		switch name {
		case "attention_mask":
			data = b.AttentionMask
		case "token_type_ids":
			data = b.TokenTypeIDs
		}
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, 0, fmt.Errorf("onnxruntime input %s: %w", name, err)
		}
		values[i] = t
	}
	var out ort.Value
	if d := e.id.Dims; d > 0 {
		t, err := ort.NewEmptyTensor[float32](ort.NewShape(int64(b.Size), int64(b.SeqLen), int64(d)))
		if err != nil {
			return nil, 0, fmt.Errorf("onnxruntime output: %w", err)
		}
		out = t
	}
	outs := []ort.Value{out}
	runOpts, err := ort.NewRunOptions()
	if err != nil {
		return nil, 0, fmt.Errorf("onnxruntime run options: %w", err)
	}
	defer runOpts.Destroy()
	stop := context.AfterFunc(ctx, func() { runOpts.Terminate() })
	err = sess.RunWithOptions(values, outs, runOpts)
	stop()
	if outs[0] != nil {
		defer outs[0].Destroy()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", ctx.Err())
		}
		return nil, 0, fmt.Errorf("onnxruntime run: %w", err)
	}
	t, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, 0, fmt.Errorf("onnxruntime output is %T, not a float32 tensor", outs[0])
	}
	s := t.GetShape()
	if len(s) != 3 || s[0] != int64(b.Size) || s[1] != int64(b.SeqLen) {
		return nil, 0, fmt.Errorf("onnxruntime output shape %v, want [%d %d dim]", s, b.Size, b.SeqLen)
	}
	data := t.GetData()
	if e.id.Dims == 0 {
		data = slices.Clone(data) // auto-allocated output: its memory goes with Destroy
	}
	return data, int(s[2]), nil
}

// Embed implements Embedder. Errors: EINVALID/EINTERNAL from MeanPool naming
// the text index; EUNAVAILABLE when ctx is cancelled or the embedder closed.
func (e *ortEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.sess == nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the ort embedder is closed")
	}
	encs, err := e.tok.EncodeBatch(texts)
	if err != nil {
		return nil, err
	}
	return runSorted(ctx, encs, e.callSize(), func(ctx context.Context, idx []int, b Batch) ([][]float32, error) {
		hidden, dim, err := e.run(ctx, b)
		if err != nil {
			return nil, err
		}
		return poolBatch(hidden, b, dim, idx)
	})
}

// callSize is the most texts one session run takes: 1 for a graph that
// quantizes its activations (perText), else maxBatch.
func (e *ortEmbedder) callSize() int {
	if e.perText {
		return 1
	}
	return e.maxBatch
}

// poolBatch mean-pools and normalises every row of a batch's last_hidden_state.
func poolBatch(hidden []float32, b Batch, dim int, idx []int) ([][]float32, error) {
	out := make([][]float32, b.Size)
	for r := range b.Size {
		v, err := MeanPool(hidden[r*b.SeqLen*dim:(r+1)*b.SeqLen*dim], b.AttentionMask[r*b.SeqLen:(r+1)*b.SeqLen], dim, idx[r])
		if err != nil {
			return nil, err
		}
		out[r] = v
	}
	return out, nil
}

func (e *ortEmbedder) Identity() Identity { return e.id }
func (e *ortEmbedder) Backend() string    { return "ort" }

// Close destroys the session; later Embed calls fail with EUNAVAILABLE.
func (e *ortEmbedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess == nil {
		return nil
	}
	err := e.sess.Destroy()
	e.sess = nil
	return err
}
