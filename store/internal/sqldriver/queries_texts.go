package sqldriver

import (
	"time"

	"github.com/lexsona/lexsona/store"
)

// The rules' texts and their embeddings.

func (x Queries[C]) texts(op, q string, args ...any) ([]store.RuleText, error) {
	return Collect(x.C.Query, op, q, args, ScanRuleText)
}

func (x Queries[C]) RuleTexts(ruleID string) ([]store.RuleText, error) {
	return x.texts("read rule texts", x.S.textsOfRule, ruleID)
}

func (x Queries[C]) LiveRuleTexts() ([]store.RuleText, error) {
	return x.texts("load rule texts", x.S.liveTexts)
}

func (x Queries[C]) CountLiveRuleTexts() (int, error) {
	var n int
	_, err := x.row("count rule texts", x.S.countLiveTexts, nil, &n)
	return n, err
}

func (x Queries[C]) TextsWithoutEmbedding(modelID string) ([]store.RuleText, error) {
	return x.texts("list texts without embedding", x.S.missingTexts, modelID)
}

// InsertRuleTextArgs are the values of InsertRuleText's statement.
func InsertRuleTextArgs(t store.RuleText, at time.Time) []any {
	return []any{t.RuleID, t.Kind, t.Text, t.SHA256, FormatTime(at)}
}

func (x Queries[C]) InsertRuleText(t store.RuleText, at time.Time) (bool, error) {
	return x.affected("add rule text", x.S.textInsert, InsertRuleTextArgs(t, at)...)
}

// LaterRuleText runs InsertRuleText's statement with Conn.Later, for a
// driver that knows the text is new.
func (x Queries[C]) LaterRuleText(t store.RuleText, at time.Time) error {
	return x.later("add rule text", x.S.textInsert, InsertRuleTextArgs(t, at)...)
}

func (x Queries[C]) SetRuleTextKind(ruleID, sha256, kind string) error {
	return x.later("set rule text kind", x.S.textSetKind, kind, ruleID, sha256)
}

// DeleteRuleText deletes a text; its vectors go with it (ON DELETE CASCADE).
func (x Queries[C]) DeleteRuleText(ruleID, sha256 string) error {
	return x.later("delete rule text", x.S.textDelete, ruleID, sha256)
}

func (x Queries[C]) EmbeddingDims(modelID string) (int, error) {
	var d int
	_, err := x.row("read embedding dims", x.S.embeddingDims, []any{modelID}, &d)
	return d, err
}

func (x Queries[C]) PutEmbedding(modelID string, e store.StoredEmbedding, at time.Time) error {
	return x.later("store embedding", x.S.embeddingPut, e.RuleID, modelID, e.SHA256, len(e.Vector), EncodeVector(e.Vector), FormatTime(at))
}

func (x Queries[C]) DeleteEmbeddingsLike(prefix, keep string) (int64, error) {
	return x.C.Exec("delete stale embeddings", x.S.embeddingsLike, prefix, keep)
}

// Embeddings sizes and loads the vectors in one read transaction; the
// vectors share one backing array.
func (x Queries[C]) Embeddings(modelID string) ([]store.StoredEmbedding, error) {
	var out []store.StoredEmbedding
	err := x.C.Consistent(func(c C) error {
		x := x.On(c)
		var n, total int
		if _, err := x.row("size embeddings", x.S.embeddingsSize, []any{modelID}, &n, &total); err != nil {
			return err
		}
		out = make([]store.StoredEmbedding, 0, n)
		slab := NewSlab(total)
		return x.C.Query("load embeddings", x.S.embeddingsLoad, []any{modelID}, func(sc Scanner) error {
			var e store.StoredEmbedding
			blob, err := x.C.ScanBlob(sc, []any{&e.RuleID, &e.Kind, &e.SHA256, nil})
			if err != nil {
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
