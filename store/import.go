package store

import (
	"regexp"

	"github.com/lexsona/lexsona/engine"
)

// The rows an import writes, as the export holds them: package memory
// checks an export and decides what of it to keep (a row the store
// already has stays as it is); these methods write what it decided, with
// the rows' own times.

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// CheckRuleRow normalises and checks a rule row: the rule's fields
// (CheckRule), who archived it, the name of the registry that defines it
// and its definition digest. Errors: EINVALID or ETOOLARGE naming the
// first bad field.
func CheckRuleRow(row *RuleRow) error {
	if err := CheckRule(&row.Rule); err != nil {
		return err
	}
	switch row.ArchivedBy {
	case "", ArchivedByUser, ArchivedByRegistry:
	default:
		return engine.Errorf(engine.EINVALID, "rule %s: archived_by %.64q: want user, registry or nothing", row.RuleID, row.ArchivedBy)
	}
	if row.Registry != "" {
		if err := engine.ValidateRegistryName(row.Registry); err != nil {
			return err
		}
	}
	if row.DefinitionSHA256 != "" && !sha256Hex.MatchString(row.DefinitionSHA256) {
		return engine.Errorf(engine.EINVALID, "rule %s: definition_sha256 is not a hex sha256", row.RuleID)
	}
	return nil
}

// CheckRuleText checks a text row (its kind, the text) and sets its
// SHA256. Errors: EINVALID or ETOOLARGE naming what is wrong.
func CheckRuleText(x *RuleText) error {
	if err := checkText(x.Kind, x.Text); err != nil {
		return err
	}
	x.SHA256 = TextSHA256(x.Text)
	return nil
}

// InsertRuleTexts inserts texts of rules that have none of them (a rule
// the import inserted), at the transaction's time. Errors: those of
// CheckRuleText; the store's.
func (t *Tx) InsertRuleTexts(texts []RuleText) error {
	for _, x := range texts {
		if err := CheckRuleText(&x); err != nil {
			return err
		}
		if _, err := t.dt.InsertRuleText(x, t.at); err != nil {
			return err
		}
	}
	return nil
}

// InsertEvents appends events in the order given, with their own times,
// α and β, and sets each one's EventID to its id here. Counterexample
// tags follow from the events. Errors: those of CheckEvent; the store's.
func (t *Tx) InsertEvents(events []engine.Event) error {
	for i := range events {
		if _, err := t.InsertEvent(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// RegistryFiles returns the registries in force inside the transaction,
// by name. Its errors are internal.
func (t *Tx) RegistryFiles() ([]RegistryFile, error) { return t.dt.RegistryFiles() }

// EachEvent calls fn with each event of rule id, by event id, reading
// them a page at a time (nothing for an unknown rule). Its errors are the
// store's and fn's.
func (t *Tx) EachEvent(id string, fn func(engine.Event) error) error {
	for after := int64(0); ; {
		evs, err := t.dt.Events(id, after, MaxHistoryLimit)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := fn(ev); err != nil {
				return err
			}
		}
		if len(evs) < MaxHistoryLimit {
			return nil
		}
		after = evs[len(evs)-1].EventID
	}
}

// RuleEvents returns every event of rule id, by event id (nothing for an
// unknown rule). Its errors are the store's.
func (t *Tx) RuleEvents(id string) ([]engine.Event, error) {
	var out []engine.Event
	err := t.EachEvent(id, func(ev engine.Event) error {
		out = append(out, ev)
		return nil
	})
	return out, err
}
