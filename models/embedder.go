// Package models turns texts into sentence embeddings: all-MiniLM-L6-v2 run by
// ONNX Runtime (ort) or by hugot's pure-Go backend (go), and a model-free
// lexical embedder. Every Embedder returns L2-normalised float32 vectors, so
// cosine similarity is a dot product.
package models

import "context"

// Identity names the model that produced a vector. Stored embeddings are keyed
// by ID(), so changing the model (or its file) invalidates them.
type Identity struct {
	Name string `json:"name"` // e.g. "all-MiniLM-L6-v2" or "lexical-v1"
	// Variant is the graph of the model folder that runs: "" for model.onnx,
	// else e.g. "int8" (model_int8.onnx) or a published file's suffix.
	Variant string `json:"variant,omitempty"`
	SHA256  string `json:"sha256"` // of the model file (of the parameters for lexical)
	Dims    int    `json:"dims"`
}

// ID is the key stored embeddings and calibrated thresholds carry:
// name@first-16-hex-of-sha256, or name-variant@… for a variant, so that the
// vectors of an int8 graph never mix with those of the float32 one.
func (id Identity) ID() string {
	h := id.SHA256
	if len(h) > 16 {
		h = h[:16]
	}
	if id.Variant != "" {
		return id.Name + "-" + id.Variant + "@" + h
	}
	return id.Name + "@" + h
}

// Embedder embeds a batch of texts. Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one L2-normalised vector per text, in order. A text that
	// would give a NaN, Inf or zero-norm vector is an error, never a vector.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Identity is the model identity stored embeddings are keyed by.
	Identity() Identity
	// Backend names the implementation: "ort", "go" or "lexical".
	Backend() string
	// Close releases native resources; the embedder is unusable afterwards.
	Close() error
}
