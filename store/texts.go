package store

import (
	"context"

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

// KnownKind reports whether kind is one of the kinds of rule texts.
func KnownKind(kind string) bool {
	switch kind {
	case KindTemplate, KindExample, KindCorrection, KindContrary:
		return true
	}
	return false
}

// RuleText is one embeddable text of a rule; SHA256 is the hex sha256 of Text.
type RuleText struct {
	RuleID string `json:"rule_id"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	SHA256 string `json:"sha256"`
}

// checkText checks a text row: a known kind, a text ValidateText takes.
func checkText(kind, text string) error {
	if !KnownKind(kind) {
		return engine.Errorf(engine.EINVALID, "unknown rule text kind %q: want template, example, correction or contrary", kind)
	}
	return engine.ValidateText("rule "+kind+" text", text, engine.MaxUserTextLength)
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
