package memory

import (
	"slices"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// What a rule's texts are kept as. A text a rule has under two kinds keeps
// the stronger (template > example > contrary > correction): a merged
// candidate's phrasing that is also the rule's example stays an example.

// kindRank orders the kinds of rule texts, 0 for an unknown one.
func kindRank(kind string) int {
	switch kind {
	case store.KindTemplate:
		return 4
	case store.KindExample:
		return 3
	case store.KindContrary:
		return 2
	case store.KindCorrection:
		return 1
	}
	return 0
}

// affirms reports whether a text of this kind says what its rule says
// (template, example, correction); a contrary text says the opposite.
func affirms(kind string) bool { return kind != store.KindContrary }

// kindText is a text with its kind, as replaceTexts takes them.
type kindText struct{ Kind, Text string }

// replaceTexts makes texts the rule's only texts of the given kinds: rows
// of those kinds that are not in texts are deleted (with their vectors),
// texts the rule has under another kind take the new kind when it is one
// of kinds or stronger, and the rest are inserted. Unchanged texts keep
// their vectors. texts are checked by the caller. Its errors are the
// store's.
func replaceTexts(tx *store.Tx, ruleID string, kinds []string, texts []kindText) error {
	rows, err := tx.RuleTexts(ruleID)
	if err != nil {
		return err
	}
	have := make(map[string]string, len(rows)) // sha → kind
	for _, x := range rows {
		have[x.SHA256] = x.Kind
	}
	want := map[string]string{} // sha → kind, strongest wins
	for _, x := range texts {
		sum := store.TextSHA256(x.Text)
		if k, ok := want[sum]; !ok || kindRank(x.Kind) > kindRank(k) {
			want[sum] = x.Kind
		}
	}
	for sum, kind := range have {
		if _, keep := want[sum]; !keep && slices.Contains(kinds, kind) {
			if err := tx.DeleteRuleText(ruleID, sum); err != nil {
				return err
			}
		}
	}
	for _, x := range texts {
		sum := store.TextSHA256(x.Text)
		kind, ok := want[sum]
		if !ok || kind != x.Kind {
			continue // a duplicate, or a weaker duplicate of a stronger text
		}
		delete(want, sum)
		var err error
		if old, exists := have[sum]; !exists {
			_, err = tx.InsertRuleText(store.RuleText{RuleID: ruleID, Kind: kind, Text: x.Text, SHA256: sum})
		} else if old != kind && (slices.Contains(kinds, old) || kindRank(kind) > kindRank(old)) {
			err = tx.SetRuleTextKind(ruleID, sum, kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// CheckTextsOf validates texts of kind (by rule id) before anything is
// written: EINVALID for an unknown kind or an empty text, ETOOLARGE for
// one over the limit, each naming its rule.
func CheckTextsOf(kind string, texts map[string][]string) error {
	if !store.KnownKind(kind) {
		return engine.Errorf(engine.EINVALID, "unknown rule text kind %q: want template, example, correction or contrary", kind)
	}
	for id, list := range texts {
		for _, x := range list {
			row := store.RuleText{Kind: kind, Text: x}
			if err := store.CheckRuleText(&row); err != nil {
				return engine.Errorf(engine.ErrorCode(err), "rule %s: %s", id, engine.ErrorMessage(err))
			}
		}
	}
	return nil
}

// ReplaceTextsOf makes texts[id] the only texts of kind that rule id has,
// for every rule listed, in tx, for texts already checked (CheckTextsOf):
// texts of that kind it no longer lists are deleted with their vectors,
// unchanged ones keep theirs, new ones are added (to be embedded by the
// next embedding job). A text the rule already has under a stronger kind
// keeps it. Rules not listed are left as they are. The registry sync uses
// it for contrary texts. Errors: ENOTFOUND naming an unknown rule; the
// store's.
func ReplaceTextsOf(tx *store.Tx, kind string, texts map[string][]string) error {
	ids := make([]string, 0, len(texts))
	for id := range texts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if ok, err := tx.RuleExists(id); err != nil || !ok {
			if err == nil {
				err = engine.Errorf(engine.ENOTFOUND, "rule %q not found", id)
			}
			return err
		}
		list := make([]kindText, len(texts[id]))
		for i, x := range texts[id] {
			list[i] = kindText{kind, x}
		}
		if err := replaceTexts(tx, id, []string{kind}, list); err != nil {
			return err
		}
	}
	return nil
}

// mergeTexts gives rule into the texts of candidate from as correction
// texts (its template is a correction of into; texts into already has
// stay as they are). Its errors are the store's.
func mergeTexts(tx *store.Tx, from, into string) error {
	texts, err := tx.RuleTexts(from)
	if err != nil {
		return err
	}
	for _, x := range texts {
		x.RuleID = into
		if x.Kind == store.KindTemplate {
			x.Kind = store.KindCorrection
		}
		if _, err := tx.InsertRuleText(x); err != nil {
			return err
		}
	}
	return nil
}
