package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
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

var (
	qEmbeddingPut = sqlq(`INSERT INTO persona_embeddings (rule_id, model_id, text_sha256, dims, vector, computed_at)
	SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM rule_texts WHERE rule_id = ?1 AND text_sha256 = ?3)
	ON CONFLICT (rule_id, model_id, text_sha256) DO UPDATE SET dims = excluded.dims, vector = excluded.vector,
	computed_at = excluded.computed_at`)
	qEmbeddingDims  = sqlq(`SELECT dims FROM persona_embeddings WHERE model_id = ? LIMIT 1`)
	qEmbeddingsSize = sqlq(`SELECT count(*), coalesce(sum(e.dims), 0) FROM persona_embeddings e
	JOIN persona_rules r ON r.rule_id = e.rule_id WHERE e.model_id = ? AND r.status <> 'archived'`)
	qEmbeddingsLoad = sqlq(`SELECT e.rule_id, t.kind, e.text_sha256, e.vector FROM persona_embeddings e
	JOIN rule_texts t ON t.rule_id = e.rule_id AND t.text_sha256 = e.text_sha256
	JOIN persona_rules r ON r.rule_id = e.rule_id
	WHERE e.model_id = ? AND r.status <> 'archived' ORDER BY e.rule_id, e.text_sha256`)
	qCounter = sqlq(`SELECT value FROM store_counters WHERE name = ?`)
)

// checkVector reports an EINVALID error unless v is non-empty, finite and
// has dims values (dims 0: any length).
func checkVector(v []float32, dims int) error {
	if len(v) == 0 {
		return engine.Errorf(engine.EINVALID, "embedding vector is empty")
	}
	if dims > 0 && len(v) != dims {
		return engine.Errorf(engine.EINVALID, "embedding has %d dimensions: the model's stored vectors have %d", len(v), dims)
	}
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return engine.Errorf(engine.EINVALID, "embedding vector has a NaN or infinite value")
		}
	}
	return nil
}

// storedDims returns the dimension of modelID's stored vectors, 0 if none.
func (t *Tx) storedDims(modelID string) (int, error) {
	var d int
	err := t.queryRow(qEmbeddingDims, modelID).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return d, dbErr("read embedding dims", err)
}

// PutEmbedding stores (or replaces) the vector of one rule text for modelID.
// A text the rule no longer has (removed since it was listed) is skipped.
// Errors: EINVALID for an empty model id, an empty or non-finite vector, or
// one whose length differs from the model's stored vectors.
func (t *Tx) PutEmbedding(modelID string, item RuleText, vector []float32) error {
	if modelID == "" {
		return engine.Errorf(engine.EINVALID, "model id is empty")
	}
	dims, err := t.storedDims(modelID)
	if err != nil {
		return err
	}
	if err := checkVector(vector, dims); err != nil {
		return err
	}
	_, err = t.exec(qEmbeddingPut, item.RuleID, modelID, item.SHA256, len(vector), encodeVector(vector), fmtTime(time.Now()))
	return dbErr("store embedding", err)
}

// PutEmbeddings stores one batch of vectors (vectors[i] embeds items[i]) in
// one transaction, so an interrupted embedding job keeps every finished batch
// and resumes with MissingEmbeddings. Texts removed meanwhile are skipped.
// Errors: EINVALID when the lengths differ or a vector is bad (nothing of the
// batch is stored then).
func (db *DB) PutEmbeddings(ctx context.Context, modelID string, items []RuleText, vectors [][]float32) error {
	if len(items) != len(vectors) {
		return engine.Errorf(engine.EINVALID, "%d texts but %d vectors", len(items), len(vectors))
	}
	if modelID == "" {
		return engine.Errorf(engine.EINVALID, "model id is empty")
	}
	if len(items) == 0 {
		return nil
	}
	return db.Write(ctx, func(tx *Tx) error {
		dims, err := tx.storedDims(modelID)
		if err != nil {
			return err
		}
		if dims == 0 {
			dims = len(vectors[0])
		}
		now := fmtTime(time.Now())
		for i, v := range vectors {
			if err := checkVector(v, dims); err != nil {
				return err
			}
			it := items[i]
			if _, err := tx.exec(qEmbeddingPut, it.RuleID, modelID, it.SHA256, len(v), encodeVector(v), now); err != nil {
				return dbErr("store embedding", err)
			}
		}
		return nil
	})
}

// LoadEmbeddings returns modelID's vectors of rules that are not archived
// (candidates included), ordered by rule id and text sha256 (as
// MissingEmbeddings lists texts). The vectors share one backing array. Its
// errors are internal.
func (db *DB) LoadEmbeddings(ctx context.Context, modelID string) ([]StoredEmbedding, error) {
	var out []StoredEmbedding
	err := db.readTx(ctx, func(r runner) error {
		var n, total int
		if err := r.queryRow(qEmbeddingsSize, modelID).Scan(&n, &total); err != nil {
			return dbErr("size embeddings", err)
		}
		out = make([]StoredEmbedding, 0, n)
		slab := make([]float32, total)
		return r.scan(qEmbeddingsLoad, []any{modelID}, func(sc scanner) error {
			var e StoredEmbedding
			var blob sql.RawBytes
			if err := sc.Scan(&e.RuleID, &e.Kind, &e.SHA256, &blob); err != nil {
				return err
			}
			d := len(blob) / 4
			if d > len(slab) { // cannot happen within one read transaction
				slab = make([]float32, d)
			}
			e.Vector = slab[:d:d]
			slab = slab[d:]
			decodeVector(e.Vector, blob)
			out = append(out, e)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EmbeddingsVersion returns a counter that changes whenever rule texts,
// embeddings, or rule statuses or ids change (also by another process), so a
// classifier can keep its matrix until it moves. Its errors are internal.
func (db *DB) EmbeddingsVersion(ctx context.Context) (int64, error) {
	var v int64
	writes := db.writes.Load() // before the query: a commit racing it makes the cache miss, never stale
	err := db.reader(ctx).queryRow(qCounter, "embeddings").Scan(&v)
	if err == nil {
		db.embVer.Store(&versionAt{v: v, writes: writes, at: time.Now()})
	}
	return v, dbErr("read embeddings version", err)
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
	if c := db.embVer.Load(); c != nil && c.writes == db.writes.Load() && time.Since(c.at) < maxAge {
		return c.v, nil
	}
	return db.EmbeddingsVersion(ctx)
}
