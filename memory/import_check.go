package memory

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// checker checks an export's records one by one as every other input is
// checked — the store's checks of what it imports, the text checks of
// Record (NormalizeCorrection), the registry parser, times not in the
// future — and what only the whole file can say: a rule, config key or
// registry given twice, an exception proposal before the rule it is an
// exception to, a confirmation resolved to a rule the file does not hold,
// an alias of a rule it does not hold or of an id one of its rules has,
// and each rule's history replayed from its prior (engine.Replay): evidence,
// counts, times, statement and status its events do not explain. It
// holds, per rule, its id, line and counterexample count, and the running
// state of the rule being read, never its events. Each check puts its
// record in normal form and, when the checker redacts, replaces secrets by
// placeholders where Record, AddRule and a registry sync would
// (correction texts, agent output, event details, statements, rule texts;
// a registry's YAML in both passes) and returns how many it replaced. Its errors are EINVALID (or ETOOLARGE) naming the record's
// line and what is wrong.
type checker struct {
	now time.Time
	// redact: replace secrets by placeholders (an import's writing pass);
	// else leave them (a check, which writes nothing).
	redact bool
	// cfg is the file's config (its overrides on the defaults): its prior
	// is one a rule may have been created at.
	cfg        engine.Config
	rules      map[string]int // rule id → line
	counters   map[string]int // rule id → counterexample events of its history
	aliases    map[string]int // alias → line
	keys       map[string]int // config key → line
	registries map[string]int // registry name → line
	// retracted maps each event a retraction names to the rule whose
	// history holds the retraction (scanRetractions).
	retracted map[int64]string
	cur       *ruleCheck // the rule whose texts and events are being read
}

// ruleCheck is the rule being read: its row and its history's replay.
type ruleCheck struct {
	row    *store.RuleRow
	line   int
	replay *engine.Replay
}

func newChecker(now time.Time, retracted map[int64]string, redact bool) *checker {
	return &checker{now: now.UTC(), redact: redact, cfg: engine.DefaultConfig(), rules: map[string]int{}, counters: map[string]int{},
		aliases: map[string]int{}, keys: map[string]int{}, registries: map[string]int{}, retracted: retracted}
}

// inRule reports whether a rule's texts and events are being read.
func (c *checker) inRule() bool { return c.cur != nil }

// retractedIn reports whether event id (the file's) is retracted in the
// history of rule ruleID.
func (c *checker) retractedIn(ruleID string, id int64) bool {
	r, ok := c.retracted[id]
	return ok && r == ruleID
}

// lineError is err (an *engine.Error) as the error of a record at line.
func lineError(line int, what string, err error) error {
	return engine.Errorf(engine.ErrorCode(err), "import: line %d: %s: %s", line, what, engine.ErrorMessage(err))
}

// twice refuses a name a record of this kind already gave at another line.
func twice(seen map[string]int, line int, what, name string) error {
	if at, ok := seen[name]; ok {
		return engine.Errorf(engine.EINVALID, "import: line %d: %s %s is given a second time (first at line %d)", line, what, name, at)
	}
	seen[name] = line
	return nil
}

// notFuture refuses a time more than engine.MaxClockSkew after now, as a
// correction's time is refused.
func (c *checker) notFuture(field string, at time.Time) error {
	if at.After(c.now.Add(engine.MaxClockSkew)) {
		return engine.Errorf(engine.EINVALID, "%s %s is in the future (the clock here says %s)", field,
			at.UTC().Format(time.RFC3339), c.now.Format(time.RFC3339))
	}
	return nil
}

// registry checks a registry record, its YAML with its secrets replaced
// by placeholders as a registry sync replaces them (in both passes: the
// YAML stored is the one that must parse).
func (c *checker) registry(line int, f *store.RegistryFile) (int, error) {
	var n int
	f.YAML, n = redact.YAML(f.YAML)
	if err := c.registryFile(f); err != nil {
		return 0, lineError(line, "registry record", err)
	}
	return n, twice(c.registries, line, "registry", f.Name)
}

// registryFile checks a registry as the registries in force are read
// (InForce): its YAML must parse, under its own name.
func (c *checker) registryFile(f *store.RegistryFile) error {
	if err := checkImportRegistry(f); err != nil {
		return err
	}
	reg, err := registry.ParseWith(f.YAML, registry.ParseOptions{File: f.Name, Name: f.Name, AllowEmpty: true})
	if err != nil {
		return engine.Errorf(engine.EINVALID, "registry %s does not parse: %s", f.Name, engine.ErrorMessage(err))
	}
	if reg.Name() != f.Name {
		return engine.Errorf(engine.EINVALID, "the registry's YAML names itself %q (name:) but its record names it %q", reg.Name(), f.Name)
	}
	return c.notFuture("synced_at", f.SyncedAt)
}

// alias checks an alias record: two well-formed ids, the rule's held by a
// rule record before it, the old one by none (a rule created under an
// old id takes it back), and not given twice.
func (c *checker) alias(line int, a store.RuleAlias) error {
	for _, id := range []string{a.OldID, a.RuleID} {
		if err := engine.ValidateRuleID(id); err != nil {
			return lineError(line, "alias record", err)
		}
	}
	if _, ok := c.rules[a.RuleID]; !ok {
		return engine.Errorf(engine.EINVALID, "import: line %d: %s is an alias of rule %s, which no rule record before it holds", line, a.OldID, a.RuleID)
	}
	if _, ok := c.rules[a.OldID]; ok {
		return engine.Errorf(engine.EINVALID, "import: line %d: %s is an alias of %s, yet the file holds a rule with that id", line, a.OldID, a.RuleID)
	}
	return twice(c.aliases, line, "alias", a.OldID)
}

func (c *checker) config(line int, key, value string) error {
	if err := checkImportConfig(key, value); err != nil {
		return lineError(line, "config record", err)
	}
	if err := twice(c.keys, line, "config key", key); err != nil {
		return err
	}
	return c.cfg.Set(key, value)
}

func (c *checker) rule(line int, row *store.RuleRow) (int, error) {
	if err := checkImportRule(row); err != nil {
		return 0, lineError(line, "rule record", err)
	}
	for _, f := range []struct {
		name string
		at   time.Time
	}{{"first_seen", row.FirstSeen}, {"last_correction", row.LastCorrection}} {
		if err := c.notFuture(f.name, f.at); err != nil {
			return 0, lineError(line, "rule "+row.RuleID, err)
		}
	}
	if row.ExceptionOf != "" {
		if _, ok := c.rules[row.ExceptionOf]; !ok {
			return 0, engine.Errorf(engine.EINVALID, "import: line %d: rule %s is an exception to %s, which no rule record before it holds", line, row.RuleID, row.ExceptionOf)
		}
	}
	if err := twice(c.rules, line, "rule", row.RuleID); err != nil {
		return 0, err
	}
	id := row.RuleID
	c.cur = &ruleCheck{row: row, line: line, replay: engine.NewReplay(row.Rule, engine.ReplayOptions{
		Priors:                engine.ReplayPriors(c.cfg),
		Retracted:             func(ev int64) bool { return c.retractedIn(id, ev) },
		ParentCounterexamples: c.counters[row.ExceptionOf],
	})}
	n := 0
	if row.Stated != nil { // a copy: the replay checks the words as given
		st := *row.Stated
		row.Stated = &st
		n = c.redactStrings(&st.Text)
	}
	return n + c.redactStrings(&row.Text), nil
}

// redactStrings replaces the secrets in ss by placeholders, when c
// redacts, and returns how many it replaced.
func (c *checker) redactStrings(ss ...*string) int {
	if !c.redact {
		return 0
	}
	return redact.Strings(ss...)
}

// ruleEnd checks the rule whose records were read against its history
// (engine.Replay.Finish), naming its line.
func (c *checker) ruleEnd() error {
	r := c.cur
	c.cur = nil
	if err := r.replay.Finish(); err != nil {
		return engine.Errorf(engine.EINVALID, "import: line %d: %s", r.line, engine.ErrorMessage(err))
	}
	c.counters[r.row.RuleID] = r.replay.Counterexamples()
	return nil
}

func (c *checker) text(line int, x *store.RuleText) (int, error) {
	row := c.cur.row
	if err := checkImportText(row.RuleID, x); err != nil {
		return 0, lineError(line, "text record of rule "+row.RuleID, err)
	}
	n := c.redactStrings(&x.Text)
	if n > 0 {
		x.SHA256 = store.TextSHA256(x.Text)
	}
	return n, nil
}

// event checks an event of the rule being read and replays it on the
// rule's history, returning what it did.
func (c *checker) event(line int, ev *engine.Event) (engine.ReplayStep, int, error) {
	ruleID := c.cur.row.RuleID
	pol := ev.Polarity // as the file gives it: the replay checks it against the type
	if err := c.eventFields(ruleID, ev); err != nil {
		return engine.ReplayStep{}, 0, lineError(line, "event record of rule "+ruleID, err)
	}
	replayed := *ev
	replayed.Polarity = pol
	step, err := c.cur.replay.Step(replayed)
	if err != nil {
		return step, 0, engine.Errorf(engine.EINVALID, "import: line %d: %s", line, engine.ErrorMessage(err))
	}
	return step, c.redactStrings(&ev.UserText, &ev.AgentOutput, &ev.Detail), nil
}

// eventFields checks an event as the store does, its correction as Record
// does (NormalizeCorrection: text, agent output, frame id, scope, a time
// not in the future) and its other texts for the characters stored text
// refuses.
func (c *checker) eventFields(ruleID string, ev *engine.Event) error {
	if err := checkImportEvent(ruleID, ev); err != nil {
		return err
	}
	if ev.UserText != "" {
		cv := engine.Correction{RuleID: ruleID, Polarity: ev.Polarity, UserText: ev.UserText, AgentOutput: ev.AgentOutput,
			FrameID: ev.FrameID, Scope: ev.Scope, At: ev.At}
		if _, err := NormalizeCorrection(cv, c.now); err != nil {
			return err
		}
	} else {
		if ev.AgentOutput != "" {
			if err := engine.ValidateText("agent output", ev.AgentOutput, engine.MaxUserTextLength); err != nil {
				return err
			}
		}
		if err := engine.ValidateFrameID(ev.FrameID); err != nil {
			return err
		}
		if err := c.notFuture("event time", ev.At); err != nil {
			return err
		}
	}
	if ev.Detail != "" {
		if err := checkMultiline("event detail", ev.Detail); err != nil {
			return err
		}
	}
	for _, f := range []struct{ name, v string }{{"event decision", ev.Decision}, {"event model", ev.Model}} {
		if err := engine.ValidateLine(f.name, f.v); err != nil {
			return err
		}
	}
	return checkCandidates(ev.Candidates)
}

func (c *checker) pending(line int, p *engine.Pending) (int, error) {
	if err := c.pendingFields(p); err != nil {
		return 0, lineError(line, "pending record", err)
	}
	return c.redactStrings(&p.Text, &p.AgentOutput), nil
}

// pendingFields checks a confirmation as the store does, and its frame id,
// candidates and times as Record checks a correction's.
func (c *checker) pendingFields(p *engine.Pending) error {
	if err := checkImportPending(p); err != nil {
		return err
	}
	switch {
	case p.RuleID == "":
	case p.Status == engine.PendingOpen || p.Status == engine.PendingRejected:
		return engine.Errorf(engine.EINVALID, "a confirmation that is %s resolved to no rule, yet it names rule %s", p.Status, p.RuleID)
	default:
		if _, ok := c.rules[p.RuleID]; !ok {
			return engine.Errorf(engine.EINVALID, "the confirmation was resolved to rule %s, which no rule record before it holds", p.RuleID)
		}
	}
	if err := engine.ValidateFrameID(p.FrameID); err != nil {
		return err
	}
	if err := engine.ValidateCorrectionTime(p.CreatedAt, c.now); err != nil {
		return err
	}
	if p.ResolvedAt != nil {
		if err := c.notFuture("resolved_at", *p.ResolvedAt); err != nil {
			return err
		}
	}
	if err := engine.ValidateLine("model", p.Model); err != nil {
		return err
	}
	return checkCandidates(p.Candidates)
}
