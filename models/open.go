package models

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/modelimport"
)

// Options configure Open. The zero value means: auto backend, the default
// model folder, the default ONNX Runtime search, one intra-op thread per
// core, sub-batches of 32, a 10,000-entry cache, slog.Default().
type Options struct {
	// Backend is "auto", "ort", "go" or "lexical"; "" means $LEXSONA_EMBEDDER,
	// else "auto".
	Backend string
	// ModelDir holds model.onnx (or onnx/model.onnx) and tokenizer.json;
	// "" means DefaultModelDir().
	ModelDir string
	// Variant picks the graph of the model folder: "fp32" (model.onnx),
	// "int8" (model_int8.onnx, which `lexsona model import` writes), "auto"
	// (int8 where it is known to embed like fp32 on this CPU, else fp32; see
	// openAutoVariant), or a published file's suffix: onnx/model_<Variant>.onnx
	// (e.g. "qint8_avx512_vnni"). "" means $LEXSONA_MODEL_VARIANT, else fp32.
	// The go backend runs fp32 and published files only.
	Variant string
	// OrtLib is the ONNX Runtime library; "" means FindORTLib's search.
	OrtLib string
	// Threads is ONNX Runtime's intra-op thread count; <= 0 means runtime.NumCPU().
	Threads int
	// MaxBatch is the most texts run through the model at once; <= 0 means 32.
	MaxBatch int
	// CacheSize is the LRU cache's size; 0 means DefaultCacheSize, < 0 no cache.
	CacheSize int
	// NoFuse makes the ort backend run the model's graph as exported instead
	// of its fused rewrite (see ortfuse.go); so does LEXSONA_ORT_FUSE=0.
	NoFuse bool
	// LexicalDims is the lexical embedder's bucket count; <= 0 means DefaultLexicalDims.
	LexicalDims int
	// Logger gets the one line saying which backend was chosen and why.
	Logger *slog.Logger
}

// fetchCommand is the command the auto log line and errors point to.
const fetchCommand = "lexsona model pull (or make model), or lexsona model import SRC for a copy you have"

// Open returns the Embedder o asks for, wrapped in a Cached unless
// o.CacheSize < 0. "auto" picks ort when the model and the ONNX Runtime
// library are both usable, else go when the model is there, else lexical,
// and logs one line saying which, why and how to fetch the model. When the
// model folder does not exist (or is empty) and the Hugging Face cache holds
// sentence-transformers/all-MiniLM-L6-v2, auto first imports it from there
// (see modelimport; one more log line says so, or warns when that fails).
//
// Errors (all *engine.Error): EINVALID for an unknown backend, a model
// folder path that escapes its root (see ValidateModelDir), a bad variant
// name, or the int8 variant on the go backend; EUNAVAILABLE,
// naming the path and what to do, for a missing model folder or model.onnx
// (ort, go), a corrupt model (every backend that loads it, auto included), and
// a missing, unloadable or too old (< 1.24) ONNX Runtime library (ort).
func Open(ctx context.Context, o Options) (Embedder, error) {
	if err := ctx.Err(); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "opening the embedder was cancelled: %v", err)
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	backend := o.Backend
	if backend == "" {
		backend = os.Getenv("LEXSONA_EMBEDDER")
	}
	if backend == "" {
		backend = "auto"
	}
	dir := o.ModelDir
	if dir == "" {
		dir = DefaultModelDir()
	}
	variant := requestedVariant(o.Variant)
	if backend == "go" && variant == VariantInt8 {
		return nil, engine.Errorf(engine.EINVALID, "the go backend cannot run the int8 variant (ONNX Runtime's quantized operators): use --embedder ort, or --variant fp32")
	}
	o.Variant = variant
	var e Embedder
	var err error
	switch backend {
	case "lexical":
		e = NewLexical(o.LexicalDims)
	case "ort", "go":
		var folder *modelFolder
		if folder, err = resolveModelFolder(dir, fileVariant(o.Variant)); err != nil {
			return nil, err
		}
		if backend == "go" {
			e, err = newGoEmbedder(folder, o.MaxBatch, log)
			break
		}
		var lib string
		if lib, err = FindORTLib(o.OrtLib); err != nil {
			return nil, err
		}
		var oe *ortEmbedder
		var why string
		if oe, folder, why, err = openORTVariant(folder, o.Variant, lib, o, log); err == nil {
			e = oe
			log.Info("embedder: ort", "model", folder.Model, "variant", describeVariant(folder), variantWhy(why), "ort_lib", describeLib(lib, ortVersion()))
		}
	case "auto":
		e, err = openAuto(ctx, dir, o, log)
	default:
		return nil, engine.Errorf(engine.EINVALID, "unknown embedder %q: use auto, ort, go or lexical", backend)
	}
	if err != nil {
		return nil, err
	}
	if o.CacheSize < 0 {
		return e, nil
	}
	return NewCached(e, o.CacheSize), nil
}

// openAuto implements the auto choice and its single log line.
func openAuto(ctx context.Context, dir string, o Options, log *slog.Logger) (Embedder, error) {
	folder, err := resolveModelFolder(dir, fileVariant(o.Variant))
	if errors.Is(err, errNoModel) {
		if f := importFromHFCache(ctx, dir, o.Variant, log); f != nil {
			folder, err = f, nil
		}
	}
	if errors.Is(err, errNoModel) {
		log.Warn("embedder: lexical (no model; similarities are word-based only)",
			"why", engine.ErrorMessage(err), "fetch_model", fetchCommand)
		return NewLexical(o.LexicalDims), nil
	}
	if err != nil {
		return nil, err
	}
	lib, err := FindORTLib(o.OrtLib)
	var version string
	if err == nil {
		version, err = initORT(lib)
	}
	if err == nil {
		e, folder, why, err := openORTVariant(folder, o.Variant, lib, o, log)
		if err != nil {
			return nil, err // the library works, so the model is broken
		}
		log.Info("embedder: ort", "why", "the model and ONNX Runtime are both here",
			"model", folder.Model, "variant", describeVariant(folder), variantWhy(why), "ort_lib", describeLib(lib, version), "fetch_model", fetchCommand)
		return e, nil
	}
	if o.Variant == VariantInt8 {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the int8 variant needs ONNX Runtime, which is unusable: %s", engine.ErrorMessage(err))
	}
	e, gerr := newGoEmbedder(folder, o.MaxBatch, nil)
	if gerr != nil {
		return nil, gerr
	}
	log.Warn("embedder: go (the slow pure-Go fallback, about 9 sentences/s against about 350 with ONNX Runtime)",
		"why", engine.ErrorMessage(err), "model", folder.Model, "fix", "run `make ort` or set LEXSONA_ORT_LIB", "fetch_model", fetchCommand)
	return e, nil
}

// importFromHFCache imports all-MiniLM-L6-v2 from the Hugging Face cache
// into dir when dir does not exist (or is empty) and the cache has the
// model, and returns the resulting folder (nil when it did not import). It
// logs one line: the import, or a warning saying why it failed.
func importFromHFCache(ctx context.Context, dir, variant string, log *slog.Logger) *modelFolder {
	if variant != "" && variant != VariantInt8 && variant != VariantAuto {
		return nil // an import writes model.onnx and model_int8.onnx, not a published variant file
	}
	entries, err := os.ReadDir(dir)
	if len(entries) > 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil // a folder with something in it is the user's: never replaced from the cache
	}
	snap, ok := modelimport.FindInHFCache(modelimport.MiniLM)
	if !ok {
		return nil
	}
	res, err := modelimport.Import(ctx, modelimport.Options{Source: snap, Dest: dir})
	if err == nil {
		var folder *modelFolder
		if folder, err = resolveModelFolder(dir, fileVariant(variant)); err == nil {
			log.Info("model: imported "+ModelName+" from the Hugging Face cache", "source", snap, "model_dir", dir,
				"checksum", res.Checksum, "weights", res.Official)
			return folder
		}
	}
	log.Warn("model: the Hugging Face cache holds "+ModelName+" but importing it failed", "source", snap, "model_dir", dir,
		"why", engine.ErrorMessage(err))
	return nil
}

// fileVariant is the variant whose file must exist before anything is
// opened: auto starts from model.onnx.
func fileVariant(variant string) string {
	if variant == VariantAuto {
		return ""
	}
	return variant
}

// variantWhy is the log attribute why_variant with an auto choice's reason,
// or an empty attribute (which slog drops) when the variant was asked for.
func variantWhy(why string) slog.Attr {
	if why == "" {
		return slog.Attr{}
	}
	return slog.String("why_variant", why)
}
