package models

import (
	"context"
	"sync"

	"github.com/lexsona/lexsona/engine"
)

// Graph is the part of a model backend that differs between runtimes: the
// forward pass of a loaded sentence encoder. Everything around it —
// tokenizing, sorting and padding into sub-batches, mean pooling,
// normalisation, the identity, closing — is the Pipeline's.
type Graph interface {
	// Forward runs the encoder on one padded batch and returns its
	// last_hidden_state, row-major [b.Size][b.SeqLen][dim], and dim. Rows a
	// runtime does not compute for padding may hold anything: pooling reads
	// only the rows b.AttentionMask marks. Cancelling ctx stops the run
	// where the runtime allows it (an EUNAVAILABLE error).
	Forward(ctx context.Context, b Batch) (hidden []float32, dim int, err error)
	// Close releases the runtime's resources.
	Close() error
}

// Pipeline embeds texts with a Graph as sentence-transformers does for
// all-MiniLM-L6-v2: the model folder's tokenizer, texts sorted by length
// into padded sub-batches (RunSorted), the forward pass, the mean of the
// attended token vectors, L2 normalisation. The ort and go backends are
// Pipelines over their own Graph. It implements Embedder (but Backend) and
// TokenCounter; it is safe for concurrent use once a graph is attached.
type Pipeline struct {
	mu       sync.RWMutex // Close takes it for writing; Embed for reading
	backend  string
	tok      *Tokenizer
	id       Identity
	callSize int
	graph    Graph // nil before Attach and after Close
}

// NewPipeline loads folder's tokenizer and hashes its model file, which
// give the identity (Dims once a graph is attached); backend names the
// embedder in errors. callSize is the most texts one Forward call gets; <= 0
// means DefaultMaxBatch. Errors: LoadTokenizer's and FileSHA256's
// (EUNAVAILABLE naming the path, EINTERNAL for a tokenizer that does not load).
func NewPipeline(backend string, folder *Folder, callSize int) (*Pipeline, error) {
	tok, err := LoadTokenizer(folder.Dir, MaxSeqLength)
	if err != nil {
		return nil, err
	}
	sum, err := FileSHA256(folder.Model)
	if err != nil {
		return nil, err
	}
	if callSize <= 0 {
		callSize = DefaultMaxBatch
	}
	return &Pipeline{backend: backend, tok: tok, callSize: callSize,
		id: Identity{Name: folder.Name, Variant: folder.Variant, SHA256: sum}}, nil
}

// Probe runs g on the empty text ([CLS] [SEP]) and pools it, which proves
// the graph computes, and returns its width. Errors: g's, and MeanPool's for
// a graph that gives NaN, Inf or zero vectors.
func (p *Pipeline) Probe(ctx context.Context, g Graph) (int, error) {
	enc, err := p.tok.Encode("")
	if err != nil {
		return 0, err
	}
	b := PadBatch([]Encoding{enc})
	hidden, dim, err := g.Forward(ctx, b)
	if err == nil {
		_, err = MeanPool(hidden, b.AttentionMask, dim, 0)
	}
	return dim, err
}

// Attach makes g, of width dims (Probe's answer), the graph Embed runs. It
// is called while the embedder is opened, before it is shared.
func (p *Pipeline) Attach(g Graph, dims int) {
	p.graph, p.id.Dims = g, dims
}

// SetCallSize sets the most texts one Forward call gets (<= 0 means
// DefaultMaxBatch), while the embedder is opened, before it is shared.
func (p *Pipeline) SetCallSize(n int) {
	if n <= 0 {
		n = DefaultMaxBatch
	}
	p.callSize = n
}

// CallSize is the most texts one Forward call gets.
func (p *Pipeline) CallSize() int { return p.callSize }

// Tokenizer is the model folder's tokenizer.
func (p *Pipeline) Tokenizer() *Tokenizer { return p.tok }

// Embed implements Embedder. Errors: the tokenizer's; EINVALID/EINTERNAL
// from MeanPool naming the text index; the graph's; EUNAVAILABLE when ctx is
// cancelled or the embedder is closed.
func (p *Pipeline) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.graph == nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the %s embedder is closed", p.backend)
	}
	encs, err := p.tok.EncodeBatch(texts)
	if err != nil {
		return nil, err
	}
	g := p.graph
	return RunSorted(ctx, encs, p.callSize, func(ctx context.Context, idx []int, b Batch) ([][]float32, error) {
		return ForwardPooled(ctx, g, b, idx)
	})
}

// ForwardPooled runs g on b and pools every row (PoolBatch).
func ForwardPooled(ctx context.Context, g Graph, b Batch, idx []int) ([][]float32, error) {
	hidden, dim, err := g.Forward(ctx, b)
	if err != nil {
		return nil, err
	}
	return PoolBatch(hidden, b, dim, idx)
}

// Identity is the model file's: its name, variant, sha256 and width.
func (p *Pipeline) Identity() Identity { return p.id }

// CountTokens implements TokenCounter.
func (p *Pipeline) CountTokens(texts []string) ([]int, error) { return p.tok.CountTokens(texts) }

// Close closes the graph; later Embed calls fail with EUNAVAILABLE. The
// error is the graph's.
func (p *Pipeline) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.graph == nil {
		return nil
	}
	err := p.graph.Close()
	p.graph = nil
	return err
}
