package memory

import (
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// checker checks an export's records one by one, as the store checks what
// it imports, and what only the whole file can say: a rule, config key or
// registry given twice, an exception proposal before the rule it is an
// exception to. Each check puts its record in normal form and returns the
// number of secrets it replaced. Its errors are EINVALID (or ETOOLARGE)
// naming the record's line and what is wrong with it.
type checker struct {
	now        time.Time
	rules      map[string]int // rule id → line
	keys       map[string]int // config key → line
	registries map[string]int
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

func (c *checker) registry(line int, f *store.RegistryFile) error {
	if err := store.CheckImportRegistry(f); err != nil {
		return lineError(line, "registry record", err)
	}
	return twice(c.registries, line, "registry", f.Name)
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
	if row.ExceptionOf != "" {
		if _, ok := c.rules[row.ExceptionOf]; !ok {
			return 0, engine.Errorf(engine.EINVALID, "import: line %d: rule %s is an exception to %s, which no rule record before it holds", line, row.RuleID, row.ExceptionOf)
		}
	}
	return 0, twice(c.rules, line, "rule", row.RuleID)
}

func (c *checker) text(line int, row *store.RuleRow, x *store.RuleText) (int, error) {
	if err := store.CheckImportText(row.RuleID, x); err != nil {
		return 0, lineError(line, "text record of rule "+row.RuleID, err)
	}
	return 0, nil
}

func (c *checker) event(line int, ruleID string, ev *engine.Event) (int, error) {
	if err := store.CheckImportEvent(ruleID, ev); err != nil {
		return 0, lineError(line, "event record of rule "+ruleID, err)
	}
	return 0, nil
}

func (c *checker) pending(line int, p *engine.Pending) (int, error) {
	if err := store.CheckImportPending(p); err != nil {
		return 0, lineError(line, "pending record", err)
	}
	return 0, nil
}
