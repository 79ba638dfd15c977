package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

var (
	qTextsOfRule = sqlq(`SELECT rule_id, kind, text, text_sha256 FROM rule_texts WHERE rule_id = ? ORDER BY kind, text_sha256`)
	qTextInsert  = sqlq(`INSERT INTO rule_texts (rule_id, kind, text, text_sha256, created_at) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT (rule_id, text_sha256) DO NOTHING`)
	qTextSetKind = sqlq(`UPDATE rule_texts SET kind = ? WHERE rule_id = ? AND text_sha256 = ?`)
	qTextDelete  = sqlq(`DELETE FROM rule_texts WHERE rule_id = ? AND text_sha256 = ?`)
	qLiveTexts   = sqlq(`SELECT t.rule_id, t.kind, t.text, t.text_sha256 FROM rule_texts t
	JOIN persona_rules r ON r.rule_id = t.rule_id WHERE r.status <> 'archived' ORDER BY t.rule_id, t.text_sha256`)
	qCountLiveTexts = sqlq(`SELECT count(*) FROM rule_texts t JOIN persona_rules r ON r.rule_id = t.rule_id WHERE r.status <> 'archived'`)
	qMissingTexts   = sqlq(`SELECT t.rule_id, t.kind, t.text, t.text_sha256 FROM rule_texts t
	JOIN persona_rules r ON r.rule_id = t.rule_id
	WHERE r.status <> 'archived' AND NOT EXISTS (SELECT 1 FROM persona_embeddings e
		WHERE e.rule_id = t.rule_id AND e.model_id = ? AND e.text_sha256 = t.text_sha256)
	ORDER BY t.rule_id, t.text_sha256`)
	qEmbeddingPut = sqlq(`INSERT INTO persona_embeddings (rule_id, model_id, text_sha256, dims, vector, computed_at)
	SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM rule_texts WHERE rule_id = ?1 AND text_sha256 = ?3)
	ON CONFLICT (rule_id, model_id, text_sha256) DO UPDATE SET dims = excluded.dims, vector = excluded.vector,
	computed_at = excluded.computed_at`)
	qEmbeddingDims  = sqlq(`SELECT dims FROM persona_embeddings WHERE model_id = ? LIMIT 1`)
	qEmbeddingsLike = sqlq(`DELETE FROM persona_embeddings WHERE substr(model_id, 1, length(?1)) = ?1 AND model_id <> ?2`)
	qEmbeddingsSize = sqlq(`SELECT count(*), coalesce(sum(e.dims), 0) FROM persona_embeddings e
	JOIN persona_rules r ON r.rule_id = e.rule_id WHERE e.model_id = ? AND r.status <> 'archived'`)
	qEmbeddingsLoad = sqlq(`SELECT e.rule_id, t.kind, e.text_sha256, e.vector FROM persona_embeddings e
	JOIN rule_texts t ON t.rule_id = e.rule_id AND t.text_sha256 = e.text_sha256
	JOIN persona_rules r ON r.rule_id = e.rule_id
	WHERE e.model_id = ? AND r.status <> 'archived' ORDER BY e.rule_id, e.text_sha256`)
)

func (r runner) texts(op, q string, args ...any) ([]store.RuleText, error) {
	return sqldriver.Collect(r.scan, op, q, args, sqldriver.ScanRuleText)
}

func (r runner) RuleTexts(ruleID string) ([]store.RuleText, error) {
	return r.texts("read rule texts", qTextsOfRule, ruleID)
}

func (r runner) LiveRuleTexts() ([]store.RuleText, error) {
	return r.texts("load rule texts", qLiveTexts)
}

func (r runner) CountLiveRuleTexts() (int, error) {
	var n int
	err := r.queryRow(qCountLiveTexts).Scan(&n)
	return n, dbErr("count rule texts", err)
}

func (r runner) TextsWithoutEmbedding(modelID string) ([]store.RuleText, error) {
	return r.texts("list texts without embedding", qMissingTexts, modelID)
}

func (r runner) InsertRuleText(x store.RuleText, at time.Time) (bool, error) {
	return r.affected("add rule text", qTextInsert, x.RuleID, x.Kind, x.Text, x.SHA256, sqldriver.FormatTime(at))
}

func (r runner) SetRuleTextKind(ruleID, sha256, kind string) error {
	return r.execErr("set rule text kind", qTextSetKind, kind, ruleID, sha256)
}

// DeleteRuleText deletes a text; its vectors go with it (ON DELETE CASCADE).
func (r runner) DeleteRuleText(ruleID, sha256 string) error {
	return r.execErr("delete rule text", qTextDelete, ruleID, sha256)
}

func (r runner) EmbeddingDims(modelID string) (int, error) {
	var d int
	err := r.queryRow(qEmbeddingDims, modelID).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return d, dbErr("read embedding dims", err)
}

func (r runner) PutEmbedding(modelID string, e store.StoredEmbedding, at time.Time) error {
	return r.execErr("store embedding", qEmbeddingPut, e.RuleID, modelID, e.SHA256, len(e.Vector), sqldriver.EncodeVector(e.Vector), sqldriver.FormatTime(at))
}

func (r runner) DeleteEmbeddingsLike(prefix, keep string) (int64, error) {
	res, err := r.exec(qEmbeddingsLike, prefix, keep)
	if err != nil {
		return 0, dbErr("delete stale embeddings", err)
	}
	return res.RowsAffected()
}

// Embeddings sizes and loads the vectors in one read transaction; the
// vectors share one backing array.
func (r runner) Embeddings(modelID string) ([]store.StoredEmbedding, error) {
	var out []store.StoredEmbedding
	err := r.consistent(func(r runner) error {
		var n, total int
		if err := r.queryRow(qEmbeddingsSize, modelID).Scan(&n, &total); err != nil {
			return dbErr("size embeddings", err)
		}
		out = make([]store.StoredEmbedding, 0, n)
		slab := sqldriver.NewSlab(total)
		return r.scan("load embeddings", qEmbeddingsLoad, []any{modelID}, func(sc scanner) error {
			var e store.StoredEmbedding
			var blob sql.RawBytes
			if err := sc.Scan(&e.RuleID, &e.Kind, &e.SHA256, &blob); err != nil {
				return err
			}
			e.Vector = slab.Decode(blob)
			out = append(out, e)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
