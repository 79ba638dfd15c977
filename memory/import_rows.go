package memory

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// The checks of an export's rows before anything is written, and what an
// import keeps of the store's own rows: a row the store already has (by
// rule id, config key, registry name, or a pending confirmation with the
// same text, scope, polarity and creation time) is left as it is, so that
// importing the same file twice changes nothing, and importing a personal
// memory into a team one adds what the team does not have.

// checkImportRule normalises and checks an exported rule row as the store
// holds one (store.CheckRuleRow); a rule without a source is the user's.
// Errors: EINVALID or ETOOLARGE naming the first bad field.
func checkImportRule(row *store.RuleRow) error {
	if row.Source == "" {
		row.Source = engine.SourceUser
	}
	return store.CheckRuleRow(row)
}

// checkImportText checks an exported text of rule ruleID (its kind, the
// text) and sets its SHA256. Errors: EINVALID or ETOOLARGE naming what is
// wrong.
func checkImportText(ruleID string, x *store.RuleText) error {
	if x.RuleID != ruleID {
		return engine.Errorf(engine.EINVALID, "a text of rule %.140q among the texts of rule %s", x.RuleID, ruleID)
	}
	return store.CheckRuleText(x)
}

// checkImportEvent normalises and checks an exported event of rule
// ruleID: a known type, a valid scope, a time, finite α and β above 0, a
// finite score, the polarity its type carries (engine.EventType.Polarity:
// a confirmation keeps its own, 1 or −1). Errors: EINVALID naming what is
// wrong.
func checkImportEvent(ruleID string, ev *engine.Event) error {
	if ev.RuleID != ruleID {
		return engine.Errorf(engine.EINVALID, "an event of rule %.140q among the events of rule %s", ev.RuleID, ruleID)
	}
	pol, err := ev.EventType.Polarity(ev.Polarity)
	if err != nil {
		return err
	}
	s, err := engine.ParseScope(ev.Scope)
	if err != nil {
		return err
	}
	if ev.At.IsZero() {
		return engine.Errorf(engine.EINVALID, "the event has no time")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"alpha", ev.Alpha}, {"beta", ev.Beta}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v <= 0 {
			return engine.Errorf(engine.EINVALID, "the event's %s is %v: want a finite number > 0", f.name, f.v)
		}
	}
	ev.Polarity = pol
	if err := store.CheckEvent(*ev); err != nil {
		return err
	}
	ev.Scope, ev.At = s, ev.At.UTC()
	return nil
}

// checkImportPending normalises and checks an exported confirmation as
// the store holds one (store.CheckPending) with its creation time.
// Errors: EINVALID or ETOOLARGE naming what is wrong.
func checkImportPending(p *engine.Pending) error {
	if p.CreatedAt.IsZero() {
		return engine.Errorf(engine.EINVALID, "the confirmation has no creation time")
	}
	return store.CheckPending(p)
}

// checkImportConfig checks an exported config override: a known key and a
// value it accepts. Errors: EINVALID naming what is wrong.
func checkImportConfig(key, value string) error {
	cfg := engine.DefaultConfig()
	if err := cfg.ValidateKey(key); err != nil {
		return err
	}
	return cfg.Set(key, value)
}

// checkImportRegistry checks an exported registry's name and sets its
// digest from its YAML (whether the YAML parses is for the registry
// package to say). Errors: EINVALID for a malformed name or no YAML.
func checkImportRegistry(f *store.RegistryFile) error {
	if err := engine.ValidateRegistryName(f.Name); err != nil {
		return err
	}
	if len(f.YAML) == 0 {
		return engine.Errorf(engine.EINVALID, "registry %s has no YAML", f.Name)
	}
	f.SHA256 = store.TextSHA256(string(f.YAML))
	f.SyncedAt = f.SyncedAt.UTC()
	return nil
}

// importRule inserts a checked rule row unless a rule with its id exists:
// then it writes nothing and reports false. Errors: EINVALID for an
// exception to a rule the store does not have; the store's.
func importRule(tx *store.Tx, row store.RuleRow) (bool, error) {
	if ok, err := tx.RuleExists(row.RuleID); err != nil || ok {
		return false, err
	}
	if row.ExceptionOf != "" {
		if ok, err := tx.RuleExists(row.ExceptionOf); err != nil || !ok {
			if err == nil {
				err = engine.Errorf(engine.EINVALID, "rule %s is an exception to %q, which the store does not have: import that rule first", row.RuleID, row.ExceptionOf)
			}
			return false, err
		}
	}
	return true, tx.InsertRuleRow(row)
}

// importConfig stores a checked config override unless the store has one
// for key; it reports whether it stored it. Its errors are the store's.
func importConfig(tx *store.Tx, key, value string) (bool, error) {
	rows, err := tx.ConfigRows()
	if err != nil {
		return false, err
	}
	for _, r := range rows {
		if r.Key == key {
			return false, nil
		}
	}
	return true, tx.PutConfig(key, value)
}

// importRegistry records a checked registry in force unless the store has
// one of that name (one without a sync time was synced at the import's
// time); it reports whether it recorded it. Its errors are the store's.
func importRegistry(tx *store.Tx, f store.RegistryFile) (bool, error) {
	have, err := tx.RegistryFiles()
	if err != nil {
		return false, err
	}
	for _, h := range have {
		if h.Name == f.Name {
			return false, nil
		}
	}
	if f.SyncedAt.IsZero() {
		f.SyncedAt = tx.At()
	}
	return true, tx.PutRegistryFile(f)
}

// pendingImport adds exported pending confirmations in batches (add),
// leaving out those the store has, or an earlier batch had, with the same
// text, scope, polarity and creation time. It keeps a digest of each.
type pendingImport struct {
	tx   *store.Tx
	seen map[[sha256.Size]byte]bool
}

// startPendingImport starts an import of pending confirmations into the
// store. Its errors are the store's.
func startPendingImport(tx *store.Tx) (*pendingImport, error) {
	have, err := tx.ListPending("", math.MaxInt32)
	if err != nil {
		return nil, err
	}
	p := &pendingImport{tx: tx, seen: make(map[[sha256.Size]byte]bool, len(have))}
	for _, h := range have {
		p.seen[pendingKey(h)] = true
	}
	return p, nil
}

// pendingKey is the digest of what makes two confirmations the same.
func pendingKey(p engine.Pending) [sha256.Size]byte {
	scope, _ := json.Marshal(p.Scope) // a Scope always encodes
	return sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%s\x00%s", p.Polarity, p.CreatedAt.UTC().Format(time.RFC3339Nano), scope, p.Text))
}

// add adds checked confirmations (with new ids) that neither the store
// nor an earlier batch has and returns how many it added. A resolved one
// keeps its status, rule and time. Errors: the store's.
func (p *pendingImport) add(ps []engine.Pending) (int, error) {
	added := 0
	for _, x := range ps {
		k := pendingKey(x)
		if p.seen[k] {
			continue
		}
		p.seen[k] = true
		if _, err := p.tx.InsertPending(x); err != nil {
			return 0, err
		}
		added++
	}
	return added, nil
}
