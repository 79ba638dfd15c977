package store

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// What an import keeps of a store's own rows: a row the store already has
// (by rule id, config key, registry name, or a pending confirmation with
// the same text, scope, polarity and creation time) is left as it is, so
// that importing the same file twice changes nothing, and importing a
// personal memory into a team one adds what the team does not have.

// ImportRule inserts an exported rule, its texts and its events (in the
// order given, with new event ids and their own times, α and β), unless a
// rule with its id exists: then it writes nothing and reports false.
// Counterexample tags follow from the events. Errors: EINVALID or
// ETOOLARGE for a bad rule, text or event (an event of another rule, an
// unknown type, a bad scope) or an exception to a rule the store does not
// have; the store's errors.
func (t *Tx) ImportRule(row RuleRow, texts []RuleText, events []engine.Event) (bool, error) {
	if err := checkRule(&row.Rule); err != nil {
		return false, err
	}
	if ok, err := t.dt.RuleExists(row.RuleID); err != nil || ok {
		return false, err
	}
	if row.ExceptionOf != "" {
		if err := mustExist(t.dt, row.ExceptionOf); err != nil {
			return false, engine.Errorf(engine.EINVALID, "rule %s is an exception to %q, which the store does not have: import that rule first", row.RuleID, row.ExceptionOf)
		}
	}
	if row.Status == engine.StatusArchived && row.ArchivedBy != ArchivedByRegistry {
		row.ArchivedBy = ArchivedByUser
	}
	if err := t.insertRuleRow(row); err != nil {
		return false, err
	}
	now := time.Now()
	for _, x := range texts {
		if x.RuleID != row.RuleID || !slices.Contains([]string{KindTemplate, KindExample, KindCorrection, KindContrary}, x.Kind) || strings.TrimSpace(x.Text) == "" {
			return false, engine.Errorf(engine.EINVALID, "rule %s: bad text %q of kind %q for rule %q", row.RuleID, x.Text, x.Kind, x.RuleID)
		}
		x.SHA256 = TextSHA256(x.Text)
		if _, err := t.dt.InsertRuleText(x, now); err != nil {
			return false, err
		}
	}
	for _, ev := range events {
		if ev.RuleID != row.RuleID {
			return false, engine.Errorf(engine.EINVALID, "rule %s: an event of rule %q among its events", row.RuleID, ev.RuleID)
		}
		if !validEventType(ev.EventType) {
			return false, engine.Errorf(engine.EINVALID, "rule %s: unknown event type %q", row.RuleID, ev.EventType)
		}
		s, err := engine.ParseScope(ev.Scope)
		if err != nil {
			return false, err
		}
		if ev.At.IsZero() || !finite(ev.Alpha) || !finite(ev.Beta) || (ev.Score != nil && !finite(*ev.Score)) {
			return false, engine.Errorf(engine.EINVALID, "rule %s: event %d has no time or a number that is not finite", row.RuleID, ev.EventID)
		}
		ev.Scope, ev.At = s, ev.At.UTC()
		if _, err := t.insertEvent(&ev); err != nil {
			return false, err
		}
	}
	return true, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// ImportConfig stores an exported config override unless the store has
// one for key; it reports whether it stored it. Errors: EINVALID for an
// unknown key or a bad value; the store's errors.
func (t *Tx) ImportConfig(key, value string) (bool, error) {
	rows, err := t.dt.ConfigRows()
	if err != nil {
		return false, err
	}
	for _, r := range rows {
		if r.Key == key {
			return false, nil
		}
	}
	cfg := engine.DefaultConfig()
	if err := cfg.ValidateKey(key); err != nil {
		return false, err
	}
	if err := cfg.Set(key, value); err != nil {
		return false, err
	}
	return true, t.dt.PutConfig(key, value, time.Now())
}

// ImportRegistry records an exported registry in force unless the store
// has one of that name; it reports whether it recorded it. Errors:
// EINVALID for an empty name; the store's errors.
func (t *Tx) ImportRegistry(f RegistryFile) (bool, error) {
	if strings.TrimSpace(f.Name) == "" {
		return false, engine.Errorf(engine.EINVALID, "registry name is empty")
	}
	have, err := t.dt.RegistryFiles()
	if err != nil {
		return false, err
	}
	for _, h := range have {
		if h.Name == f.Name {
			return false, nil
		}
	}
	if f.SyncedAt.IsZero() {
		f.SyncedAt = time.Now()
	}
	return true, t.dt.PutRegistryFile(f)
}

// ImportPending adds exported pending confirmations (with new ids), but
// not those the store has with the same text, scope, polarity and creation
// time; it returns how many it added. A resolved one keeps its status, rule
// and time. Errors: EINVALID for an empty text, a bad scope, polarity or
// status (nothing is added then); the store's errors.
func (t *Tx) ImportPending(ps []engine.Pending) (int, error) {
	key := func(p engine.Pending) string {
		return fmt.Sprintf("%d\x00%s\x00%s\x00%s", p.Polarity, fmtKeyTime(p.CreatedAt), scopeText(p.Scope), p.Text)
	}
	have, err := t.dt.ListPending("", math.MaxInt32)
	if err != nil {
		return 0, err
	}
	seen := make(map[string]bool, len(have))
	for _, h := range have {
		seen[key(h)] = true
	}
	added := 0
	for _, p := range ps {
		s, err := engine.ParseScope(p.Scope)
		if err != nil {
			return 0, err
		}
		p.Scope, p.CreatedAt = s, p.CreatedAt.UTC()
		if strings.TrimSpace(p.Text) == "" || (p.Polarity != engine.Reinforce && p.Polarity != engine.Counter) || p.CreatedAt.IsZero() {
			return 0, engine.Errorf(engine.EINVALID, "pending confirmation %d: empty text, no time or a polarity other than 1 or -1", p.ID)
		}
		if !slices.Contains([]string{"pending", "accepted", "rejected", "new_rule"}, p.Status) ||
			(p.Status == "pending") != (p.ResolvedAt == nil) {
			return 0, engine.Errorf(engine.EINVALID, "pending confirmation %d: status %q does not fit its resolution time", p.ID, p.Status)
		}
		if seen[key(p)] {
			continue
		}
		seen[key(p)] = true
		id, err := t.dt.InsertPending(p)
		if err != nil {
			return 0, err
		}
		if p.Status != "pending" {
			if _, err := t.dt.ResolvePending(id, p.Status, p.RuleID, *p.ResolvedAt); err != nil {
				return 0, err
			}
		}
		added++
	}
	return added, nil
}

func fmtKeyTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
