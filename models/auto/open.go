// Package auto opens an embedder by name — "ort", "go", "lexical", or
// "auto", the best one this machine can run — from models.Options, and
// wraps it in the embedding cache.
package auto

import (
	"context"
	"errors"
	"log/slog"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/hugot"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/models/modelimport"
	"github.com/lexsona/lexsona/models/ort"
)

// lexicalFix is the short line's advice when auto falls back to lexical:
// every way to get the model, the download last, as it needs the hub.
const lexicalFix = "make install in a checkout, lexsona model import SRC, or lexsona model pull if online"

// Open returns the Embedder o asks for (see Choose for how it is chosen),
// wrapped in a models.Cached unless o.CacheSize < 0. "auto" picks ort when
// the model and the ONNX Runtime library are both usable, else go when the
// model is there, else lexical, and logs one line saying which and why;
// falling back, the line names every place looked in and how to do better.
// When the model folder does not exist (or is empty) and the Hugging Face
// cache holds sentence-transformers/all-MiniLM-L6-v2, auto first imports it
// from there (see modelimport; one more log line says so, or warns when
// that fails). Backends are opened by name here, and only here: ort.Open,
// hugot.Open, lexical.New.
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
	c, err := choose(o, false)
	if err != nil {
		return nil, err
	}
	o.Variant = c.Variant
	var e models.Embedder
	switch c.Requested {
	case "lexical":
		e = lexical.New(o.LexicalDims)
	case "ort", "go":
		if c.modelErr != nil {
			return nil, c.modelErr
		}
		if c.Requested == "go" {
			e, err = hugot.Open(c.folder, o.MaxBatch, log)
			break
		}
		if c.ORTLib == "" {
			return nil, c.libErr
		}
		var oe *ort.Embedder
		if oe, err = ort.Open(c.folder, c.ORTLib, o, log); err == nil {
			e = oe
			log.Info("embedder: ort", oe.LogAttrs()...)
		}
	default:
		e, err = openAuto(ctx, c, o, log)
	}
	if err != nil {
		return nil, err
	}
	if o.CacheSize < 0 {
		return e, nil
	}
	return models.NewCached(e, o.CacheSize), nil
}

// openAuto opens what c chose for "auto" and logs its single line.
func openAuto(ctx context.Context, c *Choice, o models.Options, log *slog.Logger) (models.Embedder, error) {
	if c.modelErr != nil && !errors.Is(c.modelErr, models.ErrNoModel) {
		return nil, c.modelErr
	}
	folder := c.folder
	if folder == nil && c.ImportFrom != "" {
		folder = importFromHFCache(ctx, c.ImportFrom, c.ModelDir, o.Variant, log)
	}
	if folder == nil {
		log.Warn("embedder: lexical (no model)",
			"why", noModelWhy(c.modelErr), c.lookedAttr(),
			"fix", lexicalFix, "fetch_model", models.FetchHint, "details", "`lexsona doctor` lists every place looked in")
		return lexical.New(o.LexicalDims), nil
	}
	err := c.libErr
	if err == nil {
		_, err = ort.Init(c.ORTLib)
	}
	if err == nil {
		e, err := ort.Open(folder, c.ORTLib, o, log)
		if err != nil {
			return nil, err // the library works, so the model is broken
		}
		attrs := append([]any{"why", "the model and ONNX Runtime are both here"}, e.LogAttrs()...)
		log.Info("embedder: ort", append(attrs, "fetch_model", models.FetchHint)...)
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
		"why", engine.ErrorMessage(err), "model", folder.Model, c.lookedAttr(),
		"fix", "run `make ort` (and `make install` for an installed lexsona) or set LEXSONA_ORT_LIB", "fetch_model", models.FetchHint)
	return e, nil
}

// importFromHFCache imports the Hugging Face cache snapshot snap into dir
// and returns the resulting folder (nil when it did not import). It logs
// one line: the import, or a warning saying why it failed.
func importFromHFCache(ctx context.Context, snap, dir, variant string, log *slog.Logger) *models.Folder {
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
