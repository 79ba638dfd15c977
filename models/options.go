package models

import (
	"log/slog"
	"os"

	"github.com/lexsona/lexsona/internal/datadir"
)

// Options configure opening an embedder (auto.Open; the ort and hugot
// backends read the fields that concern them). The zero value means: auto
// backend, the default model folder, the default ONNX Runtime search, one
// intra-op thread per core, sub-batches of 32, a 10,000-entry cache,
// slog.Default().
type Options struct {
	// Backend is "auto", "ort", "go" or "lexical"; "" means $LEXSONA_EMBEDDER,
	// else "auto".
	Backend string
	// ModelDir holds model.onnx (or onnx/model.onnx) and tokenizer.json;
	// "" means the installed one, InstalledModelDir(DataDir()).
	ModelDir string
	// InstallDir is the data folder `make install` copies the model and
	// ONNX Runtime into: the model folder <InstallDir>/models/all-MiniLM-L6-v2
	// and the library <InstallDir>/ort/libonnxruntime.so.1 are used when no
	// ModelDir or OrtLib is given. "" means datadir.User().
	InstallDir string
	// Variant picks the graph of the model folder: "fp32" (model.onnx),
	// "int8" (model_int8.onnx, which `lexsona model import` writes), "auto"
	// (int8 where it is known to embed like fp32 on this CPU, else fp32; see
	// the ort package), or a published file's suffix: onnx/model_<Variant>.onnx
	// (e.g. "qint8_avx512_vnni"). "" means $LEXSONA_MODEL_VARIANT, else fp32.
	// The go backend runs fp32 and published files only.
	Variant string
	// OrtLib is the ONNX Runtime library; "" means ort.SearchLib's search.
	OrtLib string
	// Threads is ONNX Runtime's intra-op thread count; <= 0 means runtime.NumCPU().
	Threads int
	// MaxBatch is the most texts run through the model at once; <= 0 means DefaultMaxBatch.
	MaxBatch int
	// CacheSize is the LRU cache's size; 0 means DefaultCacheSize, < 0 no cache.
	CacheSize int
	// NoFuse makes the ort backend run the model's graph as exported instead
	// of its fused rewrite; so does LEXSONA_ORT_FUSE=0.
	NoFuse bool
	// LexicalDims is the lexical embedder's bucket count; <= 0 means lexical.DefaultDims.
	LexicalDims int
	// Logger gets the one line saying which backend was chosen and why.
	Logger *slog.Logger
}

// DataDir is InstallDir, else datadir.User(): where the installed model
// and ONNX Runtime are looked for.
func (o Options) DataDir() string {
	if o.InstallDir != "" {
		return o.InstallDir
	}
	return datadir.User()
}

// The graphs of a model folder Options.Variant picks from.
const (
	// VariantFP32 is model.onnx, the float32 graph (also Variant "").
	VariantFP32 = "fp32"
	// VariantInt8 is model_int8.onnx, the int8 graph `lexsona model import`
	// writes (modelimport.Int8Variant).
	VariantInt8 = "int8"
	// VariantAuto is int8 where it is known to embed like fp32 and this CPU
	// has the instructions its kernels need, else fp32.
	VariantAuto = "auto"
)

// RequestedVariant is v, else $LEXSONA_MODEL_VARIANT; "fp32" is "" (model.onnx).
func RequestedVariant(v string) string {
	if v == "" {
		v = os.Getenv("LEXSONA_MODEL_VARIANT")
	}
	if v == VariantFP32 {
		return ""
	}
	return v
}

// FileVariant is the variant whose file must exist before anything is
// opened: auto starts from model.onnx.
func FileVariant(variant string) string {
	if variant == VariantAuto {
		return ""
	}
	return variant
}
