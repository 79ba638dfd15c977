// Package models holds what every embedding backend shares: the Embedder
// interface and the identity stored vectors are keyed by, the options an
// embedder is opened with, the model folder's layout, the BERT tokenizer,
// sub-batching and mean pooling, the embedding cache, the request batcher
// and the progress hook. The backends live in subpackages named for what
// they wrap: ort (ONNX Runtime), hugot (hugot's pure-Go runtime) and
// lexical (no model); auto opens one of them by name; hub downloads the
// model. Every Embedder returns L2-normalised float32 vectors, so cosine
// similarity is a dot product.
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

// Fitter is an Embedder whose vectors depend on corpus statistics (the
// lexical embedder's IDF). Fit replaces those statistics with the given
// corpus's; the Identity changes with them, so vectors stored before a Fit
// are invalidated rather than mixed with new ones.
type Fitter interface {
	Fit(texts []string)
}

// TokenCounter is an embedder that can say how many tokens of its model each
// text becomes — [CLS] and [SEP] included, after truncation at the model's
// maximum length — which is what OpenAI-style usage counts. The ort and go
// backends are TokenCounters; the lexical embedder, which has no model
// tokens, is not. Errors: the tokenizer's (EINTERNAL).
type TokenCounter interface {
	CountTokens(texts []string) ([]int, error)
}

// SparseVector is an L2-normalised Dims-dimensional vector given by its
// non-zero components: Values[i] at Indices[i], Indices strictly increasing.
type SparseVector struct {
	Dims    int
	Indices []int32
	Values  []float32
}

// Dense returns v as a dense vector of length Dims (zero elsewhere).
func (v SparseVector) Dense() []float32 {
	out := make([]float32, v.Dims)
	for i, j := range v.Indices {
		out[j] = v.Values[i]
	}
	return out
}

// SparseEmbedder is an Embedder whose vectors are mostly zero. EmbedSparse
// returns, for each text, exactly the vector Embed returns (bit for bit) as
// its non-zero components, with Embed's errors. Consumers that can score
// sparse queries (the classifier's sparse index) skip the dense vector.
type SparseEmbedder interface {
	Embedder
	EmbedSparse(ctx context.Context, texts []string) ([]SparseVector, error)
}

// As finds, in e or the embedders e wraps (through Cached, Batcher and any
// other wrapper with an Unwrap() Embedder method), the first that is a T —
// the way errors.As walks wrapped errors — and reports whether there was one.
func As[T any](e Embedder) (T, bool) {
	for e != nil {
		if t, ok := e.(T); ok {
			return t, true
		}
		u, ok := e.(interface{ Unwrap() Embedder })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	var zero T
	return zero, false
}

// SparseOf returns the SparseEmbedder e is or wraps (through Cached, Batcher
// and any other wrapper with Unwrap), if any. Calling it directly skips the
// wrappers: the lexical embedder takes microseconds, so neither caching nor
// batching its vectors pays.
func SparseOf(e Embedder) (SparseEmbedder, bool) { return As[SparseEmbedder](e) }
