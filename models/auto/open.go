// Package auto opens an embedder by name — "ort", "go", "lexical", or
// "auto", the best one this machine can run — from models.Options, and
// wraps it in the embedding cache.
package auto

import (
	"context"
	"errors"
	"log/slog"
	"os"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/hugot"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/models/modelimport"
	"github.com/lexsona/lexsona/models/ort"
)

// fetchCommand is the command the auto log line and errors point to.
const fetchCommand = "lexsona model pull (or make model), or lexsona model import SRC for a copy you have"

// Open returns the Embedder o asks for, wrapped in a models.Cached unless
// o.CacheSize < 0. "auto" picks ort when the model and the ONNX Runtime
// library are both usable, else go when the model is there, else lexical,
// and logs one line saying which, why and how to fetch the model. When the
// model folder does not exist (or is empty) and the Hugging Face cache holds
// sentence-transformers/all-MiniLM-L6-v2, auto first imports it from there
// (see modelimport; one more log line says so, or warns when that fails).
// Backends are opened by name here, and only here: ort.Open, hugot.Open,
// lexical.New.
//
// Errors (all *engine.Error): EINVALID for an unknown backend, a model
// folder path that escapes its root (see models.ValidateModelDir), a bad variant
// name, or the int8 variant on the go backend; EUNAVAILABLE,
// naming the path and what to do, for a missing model folder or model.onnx
// (ort, go), a corrupt model (every backend that loads it, auto included), and
// a missing, unloadable or too old (< 1.24) ONNX Runtime library (ort).
func Open(ctx context.Context, o models.Options) (models.Embedder, error) {
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
		dir = models.DefaultModelDir()
	}
	variant := models.RequestedVariant(o.Variant)
	if backend == "go" && variant == models.VariantInt8 {
		return nil, engine.Errorf(engine.EINVALID, "the go backend cannot run the int8 variant (ONNX Runtime's quantized operators): use --embedder ort, or --variant fp32")
	}
	o.Variant = variant
	var e models.Embedder
	var err error
	switch backend {
	case "lexical":
		e = lexical.New(o.LexicalDims)
	case "ort", "go":
		var folder *models.Folder
		if folder, err = models.ResolveFolder(dir, models.FileVariant(o.Variant)); err != nil {
			return nil, err
		}
		if backend == "go" {
			e, err = hugot.Open(folder, o.MaxBatch, log)
			break
		}
		var lib string
		if lib, err = ort.FindLib(o.OrtLib); err != nil {
			return nil, err
		}
		var oe *ort.Embedder
		if oe, err = ort.Open(folder, lib, o, log); err == nil {
			e = oe
			log.Info("embedder: ort", oe.LogAttrs()...)
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
	return models.NewCached(e, o.CacheSize), nil
}

// openAuto implements the auto choice and its single log line.
func openAuto(ctx context.Context, dir string, o models.Options, log *slog.Logger) (models.Embedder, error) {
	folder, err := models.ResolveFolder(dir, models.FileVariant(o.Variant))
	if errors.Is(err, models.ErrNoModel) {
		if f := importFromHFCache(ctx, dir, o.Variant, log); f != nil {
			folder, err = f, nil
		}
	}
	if errors.Is(err, models.ErrNoModel) {
		log.Warn("embedder: lexical (no model; similarities are word-based only)",
			"why", engine.ErrorMessage(err), "fetch_model", fetchCommand)
		return lexical.New(o.LexicalDims), nil
	}
	if err != nil {
		return nil, err
	}
	lib, err := ort.FindLib(o.OrtLib)
	if err == nil {
		_, err = ort.Init(lib)
	}
	if err == nil {
		e, err := ort.Open(folder, lib, o, log)
		if err != nil {
			return nil, err // the library works, so the model is broken
		}
		attrs := append([]any{"why", "the model and ONNX Runtime are both here"}, e.LogAttrs()...)
		log.Info("embedder: ort", append(attrs, "fetch_model", fetchCommand)...)
		return e, nil
	}
	if o.Variant == models.VariantInt8 {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the int8 variant needs ONNX Runtime, which is unusable: %s", engine.ErrorMessage(err))
	}
	e, gerr := hugot.Open(folder, o.MaxBatch, nil)
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
func importFromHFCache(ctx context.Context, dir, variant string, log *slog.Logger) *models.Folder {
	if variant != "" && variant != models.VariantInt8 && variant != models.VariantAuto {
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
		var folder *models.Folder
		if folder, err = models.ResolveFolder(dir, models.FileVariant(variant)); err == nil {
			log.Info("model: imported "+models.ModelName+" from the Hugging Face cache", "source", snap, "model_dir", dir,
				"checksum", res.Checksum, "weights", res.Official)
			return folder
		}
	}
	log.Warn("model: the Hugging Face cache holds "+models.ModelName+" but importing it failed", "source", snap, "model_dir", dir,
		"why", engine.ErrorMessage(err))
	return nil
}
