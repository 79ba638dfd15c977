package store

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Kinds of rule texts: the rule's template (its text), an example phrasing
// from the registry, a correction learned by merging a candidate into it, or
// a contrary phrasing from the registry — one that says the opposite of the
// rule ("npm is fine here"), which the classifier uses to recognise a
// correction that contradicts the rule. The first three affirm the rule.
const (
	KindTemplate   = "template"
	KindExample    = "example"
	KindCorrection = "correction"
	KindContrary   = "contrary"
)

// kindRank orders kinds: a text that is both keeps the stronger kind.
func kindRank(kind string) int {
	switch kind {
	case KindTemplate:
		return 4
	case KindExample:
		return 3
	case KindContrary:
		return 2
	case KindCorrection:
		return 1
	}
	return 0
}

// Affirms reports whether a text of this kind says what its rule says
// (template, example, correction); a contrary text says the opposite.
func Affirms(kind string) bool { return kind != KindContrary }

// RuleText is one embeddable text of a rule; SHA256 is the hex sha256 of Text.
type RuleText struct {
	RuleID string `json:"rule_id"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	SHA256 string `json:"sha256"`
}

// KindText is a text with its kind, as given to ReplaceTexts.
type KindText struct{ Kind, Text string }

func checkText(kind, text string) error {
	if kindRank(kind) == 0 {
		return engine.Errorf(engine.EINVALID, "unknown rule text kind %q: want template, example, correction or contrary", kind)
	}
	return engine.ValidateText("rule "+kind+" text", text, engine.MaxUserTextLength)
}

// AddRuleText adds an embeddable text to a rule. A text the rule already has
// keeps the stronger of its two kinds (template > example > contrary >
// correction).
// Errors: EINVALID for an unknown kind or an empty text, ETOOLARGE over 1 MiB,
// ENOTFOUND for an unknown rule.
func (t *Tx) AddRuleText(ruleID, kind, text string) error {
	if err := checkText(kind, text); err != nil {
		return err
	}
	if err := mustExist(t.dt, ruleID); err != nil {
		return err
	}
	sum := TextSHA256(text)
	inserted, err := t.dt.InsertRuleText(RuleText{RuleID: ruleID, Kind: kind, Text: text, SHA256: sum}, time.Now())
	if err != nil || inserted {
		return err
	}
	have, err := t.dt.RuleTexts(ruleID)
	if err != nil {
		return err
	}
	for _, x := range have {
		if x.SHA256 == sum && kindRank(kind) > kindRank(x.Kind) {
			return t.dt.SetRuleTextKind(ruleID, sum, kind)
		}
	}
	return nil
}

// ReplaceTexts makes texts the rule's only texts of the given kinds: rows of
// those kinds that are not in texts are deleted (with their embeddings),
// texts the rule has under another kind take the new kind when it is one of
// kinds or stronger, and the rest are inserted. Unchanged texts keep their
// embeddings. texts are checked by the caller.
func (t *Tx) ReplaceTexts(ruleID string, kinds []string, texts []KindText) error {
	replaced := func(k string) bool {
		for _, x := range kinds {
			if x == k {
				return true
			}
		}
		return false
	}
	rows, err := t.dt.RuleTexts(ruleID)
	if err != nil {
		return err
	}
	have := make(map[string]string, len(rows)) // sha → kind
	for _, x := range rows {
		have[x.SHA256] = x.Kind
	}
	want := map[string]string{} // sha → kind, strongest wins
	for _, x := range texts {
		sum := TextSHA256(x.Text)
		if k, ok := want[sum]; !ok || kindRank(x.Kind) > kindRank(k) {
			want[sum] = x.Kind
		}
	}
	for sum, kind := range have {
		if _, keep := want[sum]; !keep && replaced(kind) {
			if err := t.dt.DeleteRuleText(ruleID, sum); err != nil {
				return err
			}
		}
	}
	now := time.Now()
	for _, x := range texts {
		sum := TextSHA256(x.Text)
		kind, ok := want[sum]
		if !ok || kind != x.Kind {
			continue // a duplicate, or a weaker duplicate of a stronger text
		}
		delete(want, sum)
		var err error
		if old, exists := have[sum]; !exists {
			_, err = t.dt.InsertRuleText(RuleText{RuleID: ruleID, Kind: kind, Text: x.Text, SHA256: sum}, now)
		} else if old != kind && (replaced(old) || kindRank(kind) > kindRank(old)) {
			err = t.dt.SetRuleTextKind(ruleID, sum, kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ReplaceRuleTexts makes texts[id] the only texts of kind that rule id has,
// for every rule listed, in one transaction: texts of that kind it no longer
// lists are deleted with their embeddings, unchanged ones keep theirs, new
// ones are added (to be embedded by the next embedding job). A text the rule
// already has under a stronger kind keeps it. Rules not listed are left as
// they are. The registry sync uses it for contrary texts. Errors: EINVALID
// for an unknown kind or an empty text, ETOOLARGE for a text over 1 MiB,
// ENOTFOUND naming an unknown rule; nothing is written then.
func (db *DB) ReplaceRuleTexts(ctx context.Context, kind string, texts map[string][]string) error {
	if err := CheckTextsOf(kind, texts); err != nil {
		return err
	}
	return db.Write(ctx, func(t *Tx) error { return t.ReplaceTextsOf(kind, texts) })
}

// RuleTexts lists a rule's texts ordered by kind and sha256. Errors: EINVALID
// for a malformed id, ENOTFOUND for an unknown rule.
func (db *DB) RuleTexts(ctx context.Context, ruleID string) ([]RuleText, error) {
	var out []RuleText
	err := db.drv.Read(ctx, func(r Reader) error {
		if _, err := getRule(r, ruleID); err != nil {
			return err
		}
		var err error
		out, err = r.RuleTexts(ruleID)
		return err
	})
	if err != nil {
		return []RuleText{}, err
	}
	return out, nil
}

// LoadRuleTexts returns the texts of every rule that is not archived
// (candidates included), ordered by rule id and sha256: what the classifier
// builds its index of rule vocabulary from. Its errors are internal.
func (db *DB) LoadRuleTexts(ctx context.Context) ([]RuleText, error) {
	return db.reader(ctx).LiveRuleTexts()
}

// CountTexts counts the texts of rules that are not archived: the texts an
// embedding job covers. Its errors are internal.
func (db *DB) CountTexts(ctx context.Context) (int, error) {
	return db.reader(ctx).CountLiveRuleTexts()
}

// MissingEmbeddings lists the texts of rules that are not archived (candidates
// included) that have no vector for modelID yet, ordered by rule and sha256.
// Errors: EINVALID for an empty model id; otherwise internal.
func (db *DB) MissingEmbeddings(ctx context.Context, modelID string) ([]RuleText, error) {
	if modelID == "" {
		return nil, engine.Errorf(engine.EINVALID, "model id is empty")
	}
	return db.reader(ctx).TextsWithoutEmbedding(modelID)
}
