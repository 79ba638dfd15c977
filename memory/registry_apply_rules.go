package memory

import (
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// syncDefinitions is SyncRegistry's work on the rules in tx, recorded in
// res: each definition is added, kept, updated or refused (another
// registry's rule), then the rules of registry name it omits are archived.
func applyDefinitions(tx *store.Tx, name string, checked []syncDef, at time.Time, res *SyncResult) error {
	cfg, err := tx.Config()
	if err != nil {
		return err
	}
	states, err := tx.RuleStates()
	if err != nil {
		return err
	}
	state := make(map[string]store.RuleState, len(states))
	for _, st := range states {
		state[st.RuleID] = st
	}
	inDefs := make(map[string]bool, len(checked))
	for i := range checked {
		d := &checked[i]
		id := d.rule.RuleID
		inDefs[id] = true
		st, exists := state[id]
		if !exists {
			if err := syncInsert(tx, name, d, cfg, at); err != nil {
				return err
			}
			res.Added = append(res.Added, id)
			continue
		}
		if st.Source != engine.SourceRegistry && st.DefinitionSHA256 == "" {
			res.Kept = append(res.Kept, id)
			continue
		}
		restore := st.Status == engine.StatusArchived && st.ArchivedBy == store.ArchivedByRegistry
		if st.Registry != "" && st.Registry != name && !restore {
			return engine.Errorf(engine.ECONFLICT,
				"definition %d (%s): rule %s belongs to registry %q, so registry %q cannot define it: remove it from one of them or give it another id",
				i+1, id, id, st.Registry, name)
		}
		changed := st.DefinitionSHA256 != d.sha
		if !changed && !restore && st.Registry == name {
			continue
		}
		if err := syncUpdate(tx, name, d, changed, restore, at); err != nil {
			return err
		}
		res.Updated = append(res.Updated, id)
	}
	ids := make([]string, 0, len(state))
	for id, st := range state {
		if !inDefs[id] && st.Source == engine.SourceRegistry && st.Registry == name && st.Status != engine.StatusArchived {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		st := state[id]
		if err := tx.SetStatus(id, engine.StatusArchived, store.ArchivedByRegistry); err != nil {
			return err
		}
		if _, err := tx.InsertEvent(&engine.Event{RuleID: id, EventType: engine.EventManualOverride,
			Detail: "archived: no longer in registry " + name, Alpha: st.Alpha, Beta: st.Beta, At: at}); err != nil {
			return err
		}
		res.Archived = append(res.Archived, id)
	}
	return nil
}

// syncInsert adds a new rule of registry name at the prior, with its
// creation event and texts (a text given twice is stored once, under the
// first kind: the template comes first).
func syncInsert(tx *store.Tx, name string, d *syncDef, cfg engine.Config, at time.Time) error {
	r := d.rule
	r.Alpha, r.Beta = cfg.AlphaPrior, cfg.BetaPrior
	if err := tx.InsertRuleRow(store.RuleRow{Rule: r, DefinitionSHA256: d.sha, Registry: name}); err != nil {
		return err
	}
	if _, err := tx.InsertEvent(&engine.Event{RuleID: r.RuleID, EventType: engine.EventCreation,
		Detail: "created from registry " + name, Alpha: r.Alpha, Beta: r.Beta, At: at}); err != nil {
		return err
	}
	seen := make(map[string]bool, len(d.texts))
	for _, x := range d.texts {
		sum := store.TextSHA256(x.Text)
		if seen[sum] {
			continue
		}
		seen[sum] = true
		if _, err := tx.InsertRuleText(store.RuleText{RuleID: r.RuleID, Kind: x.Kind, Text: x.Text, SHA256: sum}); err != nil {
			return err
		}
	}
	return nil
}

// syncUpdate applies a changed definition (changed), restores a rule that
// had left its registry (restore), or gives a rule its registry's name,
// with one manual_override event saying what it did.
func syncUpdate(tx *store.Tx, name string, d *syncDef, changed, restore bool, at time.Time) error {
	old, err := tx.GetRuleRow(d.rule.RuleID)
	if err != nil {
		return err
	}
	row := old
	r := &row.Rule
	var notes []string
	if changed {
		var fields []string
		for _, f := range []struct {
			name     string
			from, to string
		}{
			{"category", old.Category, d.rule.Category}, {"severity", string(old.Severity), string(d.rule.Severity)},
			{"text", old.Text, d.rule.Text}, {"scope", old.Scope.String(), d.rule.Scope.String()}, {"topic", old.Topic, d.rule.Topic},
		} {
			if f.from != f.to {
				fields = append(fields, f.name)
			}
		}
		if len(fields) == 0 {
			fields = []string{"examples"}
		}
		notes = append(notes, "definition updated from registry ("+strings.Join(fields, ", ")+")")
		r.Category, r.Severity, r.Text, r.Scope, r.Topic = d.rule.Category, d.rule.Severity, d.rule.Text, d.rule.Scope, d.rule.Topic
		if r.Status == engine.StatusCandidate {
			r.Status = engine.StatusActiveEligible
			notes = append(notes, "promoted from candidate")
		}
	}
	if restore {
		r.Status = engine.StatusActiveEligible
		notes = append(notes, "restored: back in registry "+name)
	}
	if old.Registry != name {
		notes = append(notes, "now defined by registry "+name)
	}
	r.Source = engine.SourceRegistry
	row.Registry, row.DefinitionSHA256 = name, d.sha
	if err := tx.SaveRuleRow(row); err != nil {
		return err
	}
	if changed {
		if err := replaceTexts(tx, r.RuleID, []string{store.KindTemplate, store.KindExample}, d.texts); err != nil {
			return err
		}
	}
	_, err = tx.InsertEvent(&engine.Event{RuleID: r.RuleID, EventType: engine.EventManualOverride,
		Detail: strings.Join(notes, "; "), Alpha: r.Alpha, Beta: r.Beta, At: at})
	return err
}
