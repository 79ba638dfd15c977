package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

const (
	qTextsOfRule = `SELECT rule_id, kind, text, text_sha256 FROM rule_texts WHERE rule_id = $1 ORDER BY kind, text_sha256`
	qTextInsert  = `INSERT INTO rule_texts (rule_id, kind, text, text_sha256, created_at) VALUES ($1, $2, $3, $4, $5)
	ON CONFLICT (rule_id, text_sha256) DO NOTHING`
	qTextSetKind = `UPDATE rule_texts SET kind = $1 WHERE rule_id = $2 AND text_sha256 = $3`
	qTextDelete  = `DELETE FROM rule_texts WHERE rule_id = $1 AND text_sha256 = $2`
	qLiveTexts   = `SELECT t.rule_id, t.kind, t.text, t.text_sha256 FROM rule_texts t
	JOIN persona_rules r ON r.rule_id = t.rule_id WHERE r.status <> 'archived' ORDER BY t.rule_id, t.text_sha256`
	qCountLiveTexts = `SELECT count(*) FROM rule_texts t JOIN persona_rules r ON r.rule_id = t.rule_id WHERE r.status <> 'archived'`
	qMissingTexts   = `SELECT t.rule_id, t.kind, t.text, t.text_sha256 FROM rule_texts t
	JOIN persona_rules r ON r.rule_id = t.rule_id
	WHERE r.status <> 'archived' AND NOT EXISTS (SELECT 1 FROM persona_embeddings e
		WHERE e.rule_id = t.rule_id AND e.model_id = $1 AND e.text_sha256 = t.text_sha256)
	ORDER BY t.rule_id, t.text_sha256`
	qEmbeddingPut = `INSERT INTO persona_embeddings (rule_id, model_id, text_sha256, dims, vector, computed_at)
	SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM rule_texts WHERE rule_id = $1 AND text_sha256 = $3)
	ON CONFLICT (rule_id, model_id, text_sha256) DO UPDATE SET dims = excluded.dims, vector = excluded.vector,
	computed_at = excluded.computed_at`
	qEmbeddingDims  = `SELECT dims FROM persona_embeddings WHERE model_id = $1 LIMIT 1`
	qEmbeddingsLike = `DELETE FROM persona_embeddings WHERE left(model_id, length($1)) = $1 AND model_id <> $2`
	qEmbeddingsSize = `SELECT count(*), coalesce(sum(e.dims), 0) FROM persona_embeddings e
	JOIN persona_rules r ON r.rule_id = e.rule_id WHERE e.model_id = $1 AND r.status <> 'archived'`
	qEmbeddingsLoad = `SELECT e.rule_id, t.kind, e.text_sha256, e.vector FROM persona_embeddings e
	JOIN rule_texts t ON t.rule_id = e.rule_id AND t.text_sha256 = e.text_sha256
	JOIN persona_rules r ON r.rule_id = e.rule_id
	WHERE e.model_id = $1 AND r.status <> 'archived' ORDER BY e.rule_id, e.text_sha256`
)

func (r runner) texts(op, q string, args ...any) ([]store.RuleText, error) {
	return sqldriver.Collect(r.rows, op, q, args, sqldriver.ScanRuleText)
}

func (r runner) RuleTexts(ruleID string) ([]store.RuleText, error) {
	return r.texts("read rule texts", qTextsOfRule, ruleID)
}

func (r runner) LiveRuleTexts() ([]store.RuleText, error) {
	return r.texts("load rule texts", qLiveTexts)
}

func (r runner) CountLiveRuleTexts() (int, error) {
	var n int
	_, err := r.row("count rule texts", qCountLiveTexts, nil, &n)
	return n, err
}

func (r runner) TextsWithoutEmbedding(modelID string) ([]store.RuleText, error) {
	return r.texts("list texts without embedding", qMissingTexts, modelID)
}

// InsertRuleText queues the insert of a text of a rule the member inserted
// (which had no text but those inserted since: whether this one is new is
// known); any other waits for the server's answer.
func (r runner) InsertRuleText(x store.RuleText, at time.Time) (bool, error) {
	if r.p != nil {
		if texts, ok := r.p.fresh[x.RuleID]; ok {
			if texts[x.SHA256] {
				return false, nil
			}
			if err := r.later("add rule text", qTextInsert, x.RuleID, x.Kind, x.Text, x.SHA256, sqldriver.FormatTime(at)); err != nil {
				return false, err
			}
			texts[x.SHA256] = true
			return true, nil
		}
	}
	n, err := r.exec("add rule text", qTextInsert, x.RuleID, x.Kind, x.Text, x.SHA256, sqldriver.FormatTime(at))
	return n > 0, err
}

func (r runner) SetRuleTextKind(ruleID, sha256, kind string) error {
	return r.later("set rule text kind", qTextSetKind, kind, ruleID, sha256)
}

// DeleteRuleText deletes a text; its vectors go with it (ON DELETE CASCADE).
func (r runner) DeleteRuleText(ruleID, sha256 string) error {
	r.forgetFresh()
	return r.later("delete rule text", qTextDelete, ruleID, sha256)
}

func (r runner) EmbeddingDims(modelID string) (int, error) {
	var d int
	_, err := r.row("read embedding dims", qEmbeddingDims, []any{modelID}, &d)
	return d, err
}

func (r runner) PutEmbedding(modelID string, e store.StoredEmbedding, at time.Time) error {
	return r.later("store embedding", qEmbeddingPut, e.RuleID, modelID, e.SHA256, len(e.Vector), sqldriver.EncodeVector(e.Vector), sqldriver.FormatTime(at))
}

func (r runner) DeleteEmbeddingsLike(prefix, keep string) (int64, error) {
	return r.exec("delete stale embeddings", qEmbeddingsLike, prefix, keep)
}

// Embeddings sizes and loads the vectors in one read transaction; the
// vectors share one backing array.
func (r runner) Embeddings(modelID string) ([]store.StoredEmbedding, error) {
	var out []store.StoredEmbedding
	err := r.consistent(func(r runner) error {
		var n, total int
		if _, err := r.row("size embeddings", qEmbeddingsSize, []any{modelID}, &n, &total); err != nil {
			return err
		}
		out = make([]store.StoredEmbedding, 0, n)
		slab := sqldriver.NewSlab(total)
		return r.scan("load embeddings", qEmbeddingsLoad, []any{modelID}, func(row pgx.Rows) error {
			var e store.StoredEmbedding
			if err := row.Scan(&e.RuleID, &e.Kind, &e.SHA256, nil); err != nil {
				return err
			}
			blob := row.RawValues()[3] // bytea in binary format: the bytes themselves
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
