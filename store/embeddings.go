package store

import (
	"context"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// StoredEmbedding is one stored vector with the rule and text it embeds.
type StoredEmbedding struct {
	RuleID string
	Kind   string
	SHA256 string
	Vector []float32
}

// PutEmbedding stores (or replaces) the vector of one rule text for modelID.
// A text the rule no longer has (removed since it was listed) is skipped.
// Errors: EINVALID for an empty model id, an empty or non-finite vector, or
// one whose length differs from the model's stored vectors.
func (t *Tx) PutEmbedding(modelID string, item RuleText, vector []float32) error {
	return t.putEmbeddings(modelID, []RuleText{item}, [][]float32{vector})
}

// PutEmbeddings stores one batch of vectors (vectors[i] embeds items[i]) in
// one transaction, so an interrupted embedding job keeps every finished batch
// and resumes with MissingEmbeddings. Texts removed meanwhile are skipped.
// The vectors are stored at at. Errors: EINVALID when the lengths differ or
// a vector is bad (nothing of the batch is stored then).
func (db *DB) PutEmbeddings(ctx context.Context, at time.Time, modelID string, items []RuleText, vectors [][]float32) error {
	if len(items) != len(vectors) {
		return engine.Errorf(engine.EINVALID, "%d texts but %d vectors", len(items), len(vectors))
	}
	if modelID == "" {
		return engine.Errorf(engine.EINVALID, "model id is empty")
	}
	if len(items) == 0 {
		return nil
	}
	return db.Write(ctx, at, func(tx *Tx) error { return tx.putEmbeddings(modelID, items, vectors) })
}

// putEmbeddings stores vectors[i] for items[i], each as long as the
// model's stored vectors (as the first one when it has none). Errors:
// PutEmbedding's.
func (t *Tx) putEmbeddings(modelID string, items []RuleText, vectors [][]float32) error {
	if modelID == "" {
		return engine.Errorf(engine.EINVALID, "model id is empty")
	}
	dims, err := t.dt.EmbeddingDims(modelID)
	if err != nil {
		return err
	}
	if dims == 0 {
		dims = len(vectors[0])
	}
	for i, v := range vectors {
		if err := engine.CheckVector(v, dims); err != nil {
			return err
		}
		e := StoredEmbedding{RuleID: items[i].RuleID, SHA256: items[i].SHA256, Vector: v}
		if err := t.dt.PutEmbedding(modelID, e, t.at); err != nil {
			return err
		}
	}
	return nil
}

// PruneEmbeddings deletes the vectors of every other fingerprint of
// modelID's embedder: model ids are name@fingerprint, and the vectors under
// name@… other than modelID were computed by a model (or a lexical
// vocabulary) no longer in force. It returns how many it deleted. Errors:
// EINVALID for a model id without its @fingerprint.
func (db *DB) PruneEmbeddings(ctx context.Context, at time.Time, modelID string) (int64, error) {
	sep := strings.LastIndexByte(modelID, '@')
	if sep <= 0 || sep == len(modelID)-1 {
		return 0, engine.Errorf(engine.EINVALID, "model id %q is not name@fingerprint", modelID)
	}
	var n int64
	err := db.Write(ctx, at, func(tx *Tx) error {
		var err error
		n, err = tx.dt.DeleteEmbeddingsLike(modelID[:sep+1], modelID)
		return err
	})
	return n, err
}

// LoadEmbeddings returns modelID's vectors of rules that are not archived
// (candidates included), ordered by rule id and text sha256 (as
// MissingEmbeddings lists texts). The vectors share one backing array. Its
// errors are internal.
func (db *DB) LoadEmbeddings(ctx context.Context, modelID string) ([]StoredEmbedding, error) {
	return db.reader(ctx).Embeddings(modelID)
}

// EmbeddingsVersion returns a counter that changes whenever rule texts,
// embeddings, or rule statuses or ids change (also by another process), so a
// classifier can keep its matrix until it moves. Its errors are internal.
func (db *DB) EmbeddingsVersion(ctx context.Context) (int64, error) {
	writes := db.writes.Load() // before the query: a commit racing it makes the cache miss, never stale
	v, err := db.reader(ctx).Versions()
	if err != nil {
		return 0, err
	}
	db.embVer.Store(&versionAt{v: v.Embeddings, writes: writes, at: db.clock()})
	return v.Embeddings, nil
}

// versionAt is a version read at a moment, after a number of this process's writes.
type versionAt struct {
	v      int64
	writes uint64
	at     time.Time
}

// EmbeddingsVersionWithin is EmbeddingsVersion without the query when it can
// be skipped: when this process has committed no write since the last read
// and that read is younger than maxAge. Changes made through this DB are so
// seen at once, changes by other processes within maxAge. It is for hot
// paths (every classification); its errors are EmbeddingsVersion's.
func (db *DB) EmbeddingsVersionWithin(ctx context.Context, maxAge time.Duration) (int64, error) {
	if c := db.embVer.Load(); c != nil && c.writes == db.writes.Load() && db.clock().Sub(c.at) < maxAge {
		return c.v, nil
	}
	return db.EmbeddingsVersion(ctx)
}
