package auto

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modelimport"
	"github.com/lexsona/lexsona/models/ort"
)

// Choice is the embedder Open opens for some Options, and why: every model
// folder and ONNX Runtime library looked at, and what was found there.
type Choice struct {
	// Requested is the backend asked for: auto, ort, go or lexical.
	Requested string `json:"requested"`
	// Embedder is the backend that opens: ort, go or lexical ("" when
	// Open fails; Why says why).
	Embedder string `json:"embedder"`
	// Why says why that backend, in a sentence.
	Why string `json:"why"`
	// Fix says how to get a better embedder ("" when it is ort already).
	Fix string `json:"fix,omitempty"`
	// ModelDir is the model folder looked in; Model the graph file that runs.
	ModelDir string `json:"model_dir,omitempty"`
	Model    string `json:"model,omitempty"`
	// Variant is the variant asked for ("" for model.onnx).
	Variant string `json:"variant,omitempty"`
	// ImportFrom is the Hugging Face cache snapshot auto imports into
	// ModelDir before opening it, when the folder is missing or empty.
	ImportFrom      string             `json:"import_from,omitempty"`
	ModelCandidates []models.Candidate `json:"model_candidates,omitempty"`
	// ORTLib is the ONNX Runtime library the ort backend loads, with its
	// version when it loads, or ORTError saying why it does not.
	ORTLib        string             `json:"onnxruntime_library,omitempty"`
	ORTVersion    string             `json:"onnxruntime_version,omitempty"`
	ORTError      string             `json:"onnxruntime_error,omitempty"`
	ORTCandidates []models.Candidate `json:"onnxruntime_candidates,omitempty"`

	folder   *models.Folder
	modelErr error // models.ResolveFolder's, when folder is nil
	libErr   error // ort.SearchLib's or ort.ProbeLib's
}

// Choose says what Open opens for o, and why, without loading a model or
// changing anything: it resolves the model folder (o.ModelDir, else the
// installed one, models.InstalledModelDir(o.InstallDir)), looks in the
// Hugging Face cache when auto would import from it, and finds and probes
// the ONNX Runtime library (ort.SearchLib, ort.ProbeLib) when the ort
// backend could run. A model that is there but broken is found only by
// opening it. When no embedder can open (a missing model with --embedder
// ort or go, a model folder path or variant that is wrong), Embedder is ""
// and Why says why. Errors (*engine.Error): EINVALID for an unknown backend
// or the int8 variant on the go backend.
func Choose(o models.Options) (*Choice, error) {
	return choose(o, true)
}

// choose is Choose; unless always, the library is not looked for when no
// model will run (auto with no model).
func choose(o models.Options, always bool) (*Choice, error) {
	c := &Choice{Requested: o.Backend, Variant: models.RequestedVariant(o.Variant)}
	if c.Requested == "" {
		c.Requested = "auto"
	}
	switch c.Requested {
	case "auto", "ort", "go":
	case "lexical":
		c.Embedder, c.Why = "lexical", "asked for"
		return c, nil
	default:
		return nil, engine.Errorf(engine.EINVALID, "unknown embedder %q: use auto, ort, go or lexical", c.Requested)
	}
	if c.Requested == "go" && c.Variant == models.VariantInt8 {
		return nil, engine.Errorf(engine.EINVALID, "the go backend cannot run the int8 variant (ONNX Runtime's quantized operators): use --embedder ort, or --variant fp32")
	}
	c.lookForModel(o)
	if c.modelErr != nil && !errors.Is(c.modelErr, models.ErrNoModel) {
		c.Why = engine.ErrorMessage(c.modelErr) // a path, variant or folder that is wrong: Open returns the error
		return c, nil
	}
	if c.Requested != "go" && (always || c.folder != nil || c.ImportFrom != "") {
		c.lookForLib(o)
	}
	c.decide()
	return c, nil
}

// lookForModel resolves the model folder, and for auto with none, the
// Hugging Face cache it would import from.
func (c *Choice) lookForModel(o models.Options) {
	cand := models.Candidate{Source: "option", Path: o.ModelDir}
	if cand.Path == "" {
		cand = models.Candidate{Source: "installed", Path: models.InstalledModelDir(o.InstallDir)}
	}
	c.ModelDir = cand.Path
	c.folder, c.modelErr = models.ResolveFolder(cand.Path, models.FileVariant(c.Variant))
	if c.folder != nil {
		c.Model = c.folder.Model
		cand.Taken, cand.Why = true, "holds "+c.folder.Model
	} else {
		cand.Why = models.MissingModel(c.modelErr)
	}
	c.ModelCandidates = append(c.ModelCandidates, cand)
	if c.Requested == "auto" && errors.Is(c.modelErr, models.ErrNoModel) {
		c.ModelCandidates = append(c.ModelCandidates, c.lookInHFCache(o.HFHubDir, cand.Path))
	}
}

// lookInHFCache is the Hugging Face cache candidate for dir: the snapshot
// of all-MiniLM-L6-v2 in the hub cache hub that auto imports into dir when
// dir is missing or empty.
func (c *Choice) lookInHFCache(hub, dir string) models.Candidate {
	hf := models.Candidate{Source: "hf_cache", Path: hub}
	switch {
	case c.Variant != "" && c.Variant != models.VariantInt8 && c.Variant != models.VariantAuto:
		hf.Why = "not looked in: an import writes model.onnx and model_int8.onnx, not the variant " + c.Variant
		return hf
	case hf.Path == "":
		hf.Why = "no Hugging Face cache folder can be named (no HF_HUB_CACHE, HF_HOME or home folder)"
		return hf
	}
	snap, ok := modelimport.FindInHFCache(hub, modelimport.MiniLM)
	if !ok {
		hf.Why = "has no sentence-transformers/" + models.ModelName
		return hf
	}
	hf.Path = snap
	entries, err := os.ReadDir(dir)
	if len(entries) > 0 || err != nil && !errors.Is(err, os.ErrNotExist) {
		hf.Why = "holds the model, but " + dir + " is not empty: a folder with something in it is never replaced from the cache"
		return hf
	}
	c.ImportFrom = snap
	hf.Taken, hf.Why = true, "holds the model: auto imports it into "+dir+" first"
	return hf
}

// lookForLib finds and probes the ONNX Runtime library.
func (c *Choice) lookForLib(o models.Options) {
	lib, version, tried, err := ort.Usable(o.OrtLib, o.OrtLibEnv, o.InstallDir)
	c.ORTCandidates, c.ORTLib, c.ORTVersion = tried, lib, version
	if err != nil {
		c.libErr, c.ORTError = err, engine.ErrorMessage(err)
	}
}

// decide fills Embedder, Why and Fix from what was found.
func (c *Choice) decide() {
	hasModel := c.folder != nil || c.ImportFrom != ""
	libOK := c.ORTLib != "" && c.libErr == nil
	switch {
	case c.Requested == "go" && hasModel:
		c.Embedder, c.Why = "go", "asked for"
	case c.Requested == "ort" && hasModel && libOK:
		c.Embedder, c.Why = "ort", "asked for"
	case c.Requested != "auto":
		c.Why = "the " + c.Requested + " backend cannot open: " + c.failure()
	case hasModel && libOK:
		c.Embedder, c.Why = "ort", "the model and ONNX Runtime are both here"
	case hasModel && c.Variant == models.VariantInt8:
		c.Why = "the int8 variant needs ONNX Runtime, which is unusable: " + c.ORTError
	case hasModel:
		c.Embedder, c.Why = "go", "ONNX Runtime is unusable: "+c.ORTError
		c.Fix = "run `make ort` (and `make install` for an installed lexsona) or set LEXSONA_ORT_LIB"
	default:
		c.Embedder, c.Why = "lexical", noModelWhy(c.modelErr)
		c.Fix = models.FetchHint
	}
	if c.ImportFrom != "" && c.Embedder != "" {
		c.Why += fmt.Sprintf(" (the model imported from the Hugging Face cache %s)", c.ImportFrom)
	}
}

// noModelWhy is why auto runs the lexical embedder: what is missing where.
func noModelWhy(err error) string {
	return models.MissingModel(err) + "; similarities are word-based only"
}

// failure is why an asked-for backend cannot open.
func (c *Choice) failure() string {
	if c.modelErr != nil {
		return engine.ErrorMessage(c.modelErr)
	}
	return c.ORTError
}

// Looked names every candidate not taken: "source path: why; …".
func (c *Choice) Looked() string {
	s := ""
	for _, cand := range append(append([]models.Candidate{}, c.ModelCandidates...), c.ORTCandidates...) {
		if cand.Taken || cand.Path == "" {
			continue
		}
		if s != "" {
			s += "; "
		}
		s += cand.Source + " " + cand.Path + ": " + cand.Why
	}
	return s
}

// lookedAttr is the log attribute looked_in (Looked), or an empty
// attribute, which slog drops, when every place looked in was taken.
func (c *Choice) lookedAttr() slog.Attr {
	if s := c.Looked(); s != "" {
		return slog.String("looked_in", s)
	}
	return slog.Attr{}
}
