package models

import "log/slog"

// Options configure opening an embedder (auto.Open; the ort and hugot
// backends read the fields that concern them). The zero value means: auto
// backend, the model folder ./.lexsona/models/all-MiniLM-L6-v2, the ONNX
// Runtime search of a checkout, beside the executable and of the system
// loader, no Hugging Face cache, one intra-op thread per core, sub-batches
// of 32, a 10,000-entry cache, slog.Default(). Nothing here is read from the
// environment: the command line fills the fields from its configuration
// (internal/config).
type Options struct {
	// Backend is "auto", "ort", "go" or "lexical"; "" means "auto".
	Backend string
	// ModelDir holds model.onnx (or onnx/model.onnx) and tokenizer.json;
	// "" means the installed one, InstalledModelDir(InstallDir).
	ModelDir string
	// InstallDir is the data folder `make install` copies the model and
	// ONNX Runtime into (config.Config.UserDataDir): the model folder
	// <InstallDir>/models/all-MiniLM-L6-v2 and the library
	// <InstallDir>/ort/libonnxruntime.so.1 are used when no ModelDir or
	// OrtLib is given. "" means none: the library search skips it.
	InstallDir string
	// Variant picks the graph of the model folder: "fp32" (model.onnx),
	// "int8" (model_int8.onnx, which `lexsona model import` writes), "auto"
	// (int8 where it is known to embed like fp32 on this CPU, else fp32; see
	// the ort package), or a published file's suffix: onnx/model_<Variant>.onnx
	// (e.g. "qint8_avx512_vnni"). "" means fp32.
	// The go backend runs fp32 and published files only.
	Variant string
	// OrtLib is the ONNX Runtime library given as an option (--ort-lib);
	// "" means OrtLibEnv, else ort.SearchLib's search.
	OrtLib string
	// OrtLibEnv is the library LEXSONA_ORT_LIB names
	// (config.Config.ORTLib), looked for after OrtLib and reported under the
	// variable's name; "" means none.
	OrtLibEnv string
	// HFHubDir is the Hugging Face hub cache (config.Config.HFHubDir) auto
	// imports the model from when the model folder is missing or empty; ""
	// means there is none to look in.
	HFHubDir string
	// Threads is ONNX Runtime's intra-op thread count; <= 0 means runtime.NumCPU().
	Threads int
	// MaxBatch is the most texts run through the model at once; <= 0 means DefaultMaxBatch.
	MaxBatch int
	// CacheSize is the LRU cache's size; 0 means DefaultCacheSize, < 0 no cache.
	CacheSize int
	// NoFuse makes the ort backend run the model's graph as exported instead
	// of its fused rewrite (the command line sets it for LEXSONA_ORT_FUSE=0).
	NoFuse bool
	// LexicalDims is the lexical embedder's bucket count; <= 0 means lexical.DefaultDims.
	LexicalDims int
	// Logger gets the one line saying which backend was chosen and why.
	Logger *slog.Logger
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

// RequestedVariant is the variant v asks for: "fp32" is "" (model.onnx).
func RequestedVariant(v string) string {
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
