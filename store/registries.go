package store

import (
	"bytes"
	"context"
	"slices"

	"github.com/lexsona/lexsona/engine"
)

// Registries returns the registries in force: the YAML last synced under
// each name (see RegistrySync.YAML), ordered by name. Errors are internal.
func (db *DB) Registries(ctx context.Context) ([]RegistryFile, error) {
	return db.reader(ctx).RegistryFiles()
}

// Recorded reports whether yaml is recorded under name.
func (db *DB) Recorded(ctx context.Context, name string, yaml []byte) (bool, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(files, func(f RegistryFile) bool { return f.Name == name })
	return i >= 0 && bytes.Equal(files[i].YAML, yaml), nil
}

// CheckTextsOf validates texts of kind before anything is written: EINVALID
// for an unknown kind or an empty text, ETOOLARGE for one over the limit,
// each naming its rule.
func CheckTextsOf(kind string, texts map[string][]string) error {
	if err := checkText(kind, "x"); err != nil {
		return err
	}
	for id, list := range texts {
		for _, x := range list {
			if err := checkText(kind, x); err != nil {
				return engine.Errorf(engine.ErrorCode(err), "rule %s: %s", id, engine.ErrorMessage(err))
			}
		}
	}
	return nil
}

// ReplaceTextsOf is ReplaceRuleTexts in tx, for texts already checked
// (CheckTextsOf): ENOTFOUND naming an unknown rule.
func (tx *Tx) ReplaceTextsOf(kind string, texts map[string][]string) error {
	ids := make([]string, 0, len(texts))
	for id := range texts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := mustExist(tx.dt, id); err != nil {
			return err
		}
		list := make([]KindText, len(texts[id]))
		for i, x := range texts[id] {
			list[i] = KindText{kind, x}
		}
		if err := tx.ReplaceTexts(id, []string{kind}, list); err != nil {
			return err
		}
	}
	return nil
}
