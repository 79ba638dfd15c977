package memory

import (
	"math"
	"time"
	"unicode/utf8"

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
// exception to, a rule's α and β that its events do not explain. Each check
// puts its record in normal form, replaces secrets by placeholders where
// Record and AddRule would (correction texts, agent output, event details,
// the texts of rules no registry defines, correction texts of those it
// does) and returns how many it replaced. Its errors are
// EINVALID (or ETOOLARGE) naming the record's line and what is wrong.
type checker struct {
	now        time.Time
	rules      map[string]int // rule id → line
	keys       map[string]int // config key → line
	registries map[string]int // registry name → line
}

func newChecker(now time.Time) *checker {
	return &checker{now: now.UTC(), rules: map[string]int{}, keys: map[string]int{}, registries: map[string]int{}}
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

func (c *checker) registry(line int, f *store.RegistryFile) error {
	if err := c.registryFile(f); err != nil {
		return lineError(line, "registry record", err)
	}
	return twice(c.registries, line, "registry", f.Name)
}

// registryFile checks a registry as the registries in force are read
// (InForce): its YAML must parse, under its own name.
func (c *checker) registryFile(f *store.RegistryFile) error {
	if err := store.CheckImportRegistry(f); err != nil {
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

func (c *checker) config(line int, key, value string) error {
	if err := store.CheckImportConfig(key, value); err != nil {
		return lineError(line, "config record", err)
	}
	return twice(c.keys, line, "config key", key)
}

func (c *checker) rule(line int, row *store.RuleRow) (int, error) {
	if err := store.CheckImportRule(row); err != nil {
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
	if row.Source == engine.SourceRegistry {
		return 0, nil
	}
	return redact.Strings(&row.Text), nil
}

func (c *checker) text(line int, row *store.RuleRow, x *store.RuleText) (int, error) {
	if err := store.CheckImportText(row.RuleID, x); err != nil {
		return 0, lineError(line, "text record of rule "+row.RuleID, err)
	}
	if row.Source == engine.SourceRegistry && x.Kind != store.KindCorrection {
		return 0, nil
	}
	n := redact.Strings(&x.Text)
	if n > 0 {
		x.SHA256 = store.TextSHA256(x.Text)
	}
	return n, nil
}

func (c *checker) event(line int, ruleID string, ev *engine.Event) (int, error) {
	if err := c.eventFields(ruleID, ev); err != nil {
		return 0, lineError(line, "event record of rule "+ruleID, err)
	}
	return redact.Strings(&ev.UserText, &ev.AgentOutput, &ev.Detail), nil
}

// eventFields checks an event as the store does, its correction as Record
// does (NormalizeCorrection: text, agent output, frame id, scope, a time
// not in the future) and its other texts for the characters stored text
// refuses.
func (c *checker) eventFields(ruleID string, ev *engine.Event) error {
	if err := store.CheckImportEvent(ruleID, ev); err != nil {
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
		if err := checkFrameID(ev.FrameID); err != nil {
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
	return redact.Strings(&p.Text, &p.AgentOutput), nil
}

// pendingFields checks a confirmation as the store does, and its frame id,
// candidates and times as Record checks a correction's.
func (c *checker) pendingFields(p *engine.Pending) error {
	if err := store.CheckImportPending(p); err != nil {
		return err
	}
	if err := checkFrameID(p.FrameID); err != nil {
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

// ruleRecords checks what a rule's events say of it: every event records
// the rule's α and β after it, so the last one records the rule's own. A
// rule without events, or whose α and β differ from its last event's, has
// evidence nothing explains (an edited file).
func (c *checker) ruleRecords(line int, r *ruleRecords) error {
	rule := &r.row.Rule
	if len(r.events) == 0 {
		return engine.Errorf(engine.EINVALID, "import: line %d: rule %s has no events: nothing explains its alpha %g and beta %g",
			line, rule.RuleID, rule.Alpha, rule.Beta)
	}
	last := r.events[len(r.events)-1]
	if !sameFloat(last.Alpha, rule.Alpha) || !sameFloat(last.Beta, rule.Beta) {
		return engine.Errorf(engine.EINVALID, "import: line %d: rule %s has alpha %g and beta %g, but its last event (line %d) records alpha %g and beta %g: the file was edited",
			line, rule.RuleID, rule.Alpha, rule.Beta, r.lastEventLine, last.Alpha, last.Beta)
	}
	return nil
}

// sameFloat reports whether a and b are equal up to rounding.
func sameFloat(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// checkFrameID checks a frame id as Record does.
func checkFrameID(id string) error {
	if len(id) > 256 {
		return engine.Errorf(engine.EINVALID, "frame id is %d bytes long: at most 256", len(id))
	}
	return engine.ValidateLine("frame id", id)
}

// checkMultiline checks a stored text that may span lines and be empty.
func checkMultiline(field, s string) error {
	if !utf8.ValidString(s) {
		return engine.Errorf(engine.EINVALID, "%s is not valid UTF-8", field)
	}
	if len(s) > engine.MaxUserTextLength {
		return engine.Errorf(engine.ETOOLARGE, "%s is %d bytes long: at most %d", field, len(s), engine.MaxUserTextLength)
	}
	return engine.CheckChars(field, s, true)
}

// checkCandidates checks the rules a classifier considered: valid ids,
// finite scores.
func checkCandidates(cs []engine.Candidate) error {
	for _, k := range cs {
		if err := engine.ValidateRuleID(k.RuleID); err != nil {
			return engine.Errorf(engine.EINVALID, "candidate: %s", engine.ErrorMessage(err))
		}
		if math.IsNaN(k.Score) || math.IsInf(k.Score, 0) {
			return engine.Errorf(engine.EINVALID, "candidate %s has a score that is not a finite number", k.RuleID)
		}
	}
	return nil
}
