package store

import (
	"regexp"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// What an import keeps of a store's own rows: a row the store already has
// (by rule id, config key, registry name, or a pending confirmation with
// the same text, scope, polarity and creation time) is left as it is, so
// that importing the same file twice changes nothing, and importing a
// personal memory into a team one adds what the team does not have.
//
// The CheckImport… functions are the checks the Import… methods run before
// writing, exported so that an importer can check a whole file before it
// opens a transaction; they normalise what they check (scopes, times, the
// polarity an event type implies, digests).

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// CheckImportRule normalises and checks an exported rule row: the rule's
// fields as InsertRule checks them, who archived it, the name of the
// registry that defines it and its definition digest. Errors: EINVALID or
// ETOOLARGE naming the first bad field.
func CheckImportRule(row *RuleRow) error {
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

// CheckImportText checks an exported text of rule ruleID (its kind, the
// text as AddRuleText checks it) and sets its SHA256. Errors: EINVALID or
// ETOOLARGE naming what is wrong.
func CheckImportText(ruleID string, x *RuleText) error {
	if x.RuleID != ruleID {
		return engine.Errorf(engine.EINVALID, "a text of rule %.140q among the texts of rule %s", x.RuleID, ruleID)
	}
	if err := checkText(x.Kind, x.Text); err != nil {
		return err
	}
	x.SHA256 = TextSHA256(x.Text)
	return nil
}

// CheckImportEvent normalises and checks an exported event of rule ruleID:
// a known type, a valid scope, a time, finite α and β above 0, a finite
// score, the polarity its type implies (a confirmation keeps its own, 1 or
// −1). Errors: EINVALID naming what is wrong.
func CheckImportEvent(ruleID string, ev *engine.Event) error {
	if ev.RuleID != ruleID {
		return engine.Errorf(engine.EINVALID, "an event of rule %.140q among the events of rule %s", ev.RuleID, ruleID)
	}
	if !validEventType(ev.EventType) {
		return engine.Errorf(engine.EINVALID, "unknown event type %.64q", ev.EventType)
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
		if validateFloat(f.name, f.v, 0) != nil || f.v == 0 {
			return engine.Errorf(engine.EINVALID, "the event's %s is %v: want a finite number > 0", f.name, f.v)
		}
	}
	if err := checkEventRow(ev); err != nil {
		return err
	}
	ev.Scope, ev.At = s, ev.At.UTC()
	return nil
}

// CheckImportPending normalises and checks an exported confirmation: its
// text and agent output as CreatePending checks them, a polarity of 1 or
// −1, its scope, frame id, creation time, and a status that fits its
// resolution. Errors: EINVALID or ETOOLARGE naming what is wrong.
func CheckImportPending(p *engine.Pending) error {
	if err := engine.ValidateText("correction text", p.Text, engine.MaxUserTextLength); err != nil {
		return err
	}
	if p.AgentOutput != "" {
		if err := engine.ValidateText("agent output", p.AgentOutput, engine.MaxUserTextLength); err != nil {
			return err
		}
	}
	if p.Polarity != engine.Reinforce && p.Polarity != engine.Counter {
		return engine.Errorf(engine.EINVALID, "polarity %d: want 1 (reinforcement) or -1 (counterexample)", p.Polarity)
	}
	s, err := engine.ParseScope(p.Scope)
	if err != nil {
		return err
	}
	if len(p.FrameID) > 256 {
		return engine.Errorf(engine.EINVALID, "frame id is %d bytes long: at most 256", len(p.FrameID))
	}
	if p.CreatedAt.IsZero() {
		return engine.Errorf(engine.EINVALID, "the confirmation has no creation time")
	}
	switch p.Status {
	case engine.PendingOpen, engine.PendingAccepted, engine.PendingRejected, engine.PendingNewRule:
	default:
		return engine.Errorf(engine.EINVALID, "confirmation status %.64q: want pending, accepted, rejected or new_rule", p.Status)
	}
	if (p.Status == engine.PendingOpen) != (p.ResolvedAt == nil) {
		return engine.Errorf(engine.EINVALID, "confirmation status %q does not fit its resolution time", p.Status)
	}
	if p.RuleID != "" {
		if err := engine.ValidateRuleID(p.RuleID); err != nil {
			return err
		}
	}
	p.Scope, p.CreatedAt = s, p.CreatedAt.UTC()
	if p.ResolvedAt != nil {
		at := p.ResolvedAt.UTC()
		p.ResolvedAt = &at
	}
	return nil
}

// CheckImportConfig checks an exported config override: a known key and a
// value it accepts. Errors: EINVALID naming what is wrong.
func CheckImportConfig(key, value string) error {
	cfg := engine.DefaultConfig()
	if err := cfg.ValidateKey(key); err != nil {
		return err
	}
	return cfg.Set(key, value)
}

// CheckImportRegistry checks an exported registry's name and sets its
// digest from its YAML (whether the YAML parses is for the registry
// package to say). Errors: EINVALID for a malformed name or no YAML.
func CheckImportRegistry(f *RegistryFile) error {
	if err := engine.ValidateRegistryName(f.Name); err != nil {
		return err
	}
	if len(f.YAML) == 0 {
		return engine.Errorf(engine.EINVALID, "registry %s has no YAML", f.Name)
	}
	f.SHA256 = TextSHA256(string(f.YAML))
	f.SyncedAt = f.SyncedAt.UTC()
	return nil
}

// ImportRule inserts an exported rule row unless a rule with its id
// exists: then it writes nothing and reports false. Its texts and events
// follow with ImportTexts and ImportEvents, in batches of the caller's
// size. Errors: those of CheckImportRule; EINVALID for an exception to a
// rule the store does not have; the store's.
func (t *Tx) ImportRule(row RuleRow) (bool, error) {
	if err := CheckImportRule(&row); err != nil {
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
	return true, t.InsertRuleRow(row)
}

// ImportTexts inserts exported texts of rule ruleID, which ImportRule
// inserted. Errors: those of CheckImportText; the store's.
func (t *Tx) ImportTexts(ruleID string, texts []RuleText) error {
	now := time.Now()
	for _, x := range texts {
		if err := CheckImportText(ruleID, &x); err != nil {
			return err
		}
		if _, err := t.dt.InsertRuleText(x, now); err != nil {
			return err
		}
	}
	return nil
}

// ImportEvents appends exported events to rule ruleID, in the order given,
// with their own times, α and β, and sets each one's EventID to its id
// here. Counterexample tags follow from the events. Errors: those of
// CheckImportEvent; the store's.
func (t *Tx) ImportEvents(ruleID string, events []engine.Event) error {
	for i := range events {
		if err := CheckImportEvent(ruleID, &events[i]); err != nil {
			return err
		}
		if _, err := t.InsertEvent(&events[i]); err != nil {
			return err
		}
	}
	return nil
}

// ImportConfig stores an exported config override unless the store has
// one for key; it reports whether it stored it. Errors: those of
// CheckImportConfig; the store's.
func (t *Tx) ImportConfig(key, value string) (bool, error) {
	if err := CheckImportConfig(key, value); err != nil {
		return false, err
	}
	rows, err := t.dt.ConfigRows()
	if err != nil {
		return false, err
	}
	for _, r := range rows {
		if r.Key == key {
			return false, nil
		}
	}
	return true, t.dt.PutConfig(key, value, time.Now())
}

// ImportRegistry records an exported registry in force unless the store
// has one of that name; it reports whether it recorded it. Errors: those
// of CheckImportRegistry; the store's.
func (t *Tx) ImportRegistry(f RegistryFile) (bool, error) {
	if err := CheckImportRegistry(&f); err != nil {
		return false, err
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
		f.SyncedAt = time.Now().UTC()
	}
	return true, t.dt.PutRegistryFile(f)
}

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
