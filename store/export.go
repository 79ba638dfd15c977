package store

import (
	"context"
	"math"
	"slices"

	"github.com/lexsona/lexsona/engine"
)

// ExportVisitor receives everything a store holds, for an export: the
// registries in force, the config overrides, then each rule followed by its
// texts and its events (oldest first), an exception proposal after the rule
// it is an exception to, then the rules' aliases (by old id), then the
// pending confirmations. A nil function
// skips its kind; an error stops the export and is returned.
type ExportVisitor struct {
	Registry func(RegistryFile) error
	Config   func(ConfigRow) error
	Rule     func(RuleRow) error
	Text     func(RuleText) error
	Event    func(engine.Event) error
	Alias    func(RuleAlias) error
	Pending  func(engine.Pending) error
}

// Export reads the whole store in one read transaction (a consistent
// state, whatever is written meanwhile) and hands it to v. Vectors and
// idempotency keys are left out: vectors are recomputed from the texts,
// keys are short-lived. Errors: v's; internal errors.
func (db *DB) Export(ctx context.Context, v ExportVisitor) error {
	return db.drv.Read(ctx, func(r Reader) error {
		regs, err := r.RegistryFiles()
		if err != nil {
			return err
		}
		for _, f := range regs {
			if err := call(v.Registry, f); err != nil {
				return err
			}
		}
		cfg, err := r.ConfigRows()
		if err != nil {
			return err
		}
		for _, c := range cfg {
			if err := call(v.Config, c); err != nil {
				return err
			}
		}
		rules, err := r.Rules(RuleQuery{})
		if err != nil {
			return err
		}
		for _, rule := range exportOrder(rules) {
			if err := exportRule(r, rule.RuleID, v); err != nil {
				return err
			}
		}
		aliases, err := r.RuleAliases()
		if err != nil {
			return err
		}
		for _, a := range aliases {
			if err := call(v.Alias, a); err != nil {
				return err
			}
		}
		pending, err := r.ListPending("", math.MaxInt32)
		if err != nil {
			return err
		}
		for _, p := range pending {
			if err := call(v.Pending, p); err != nil {
				return err
			}
		}
		return nil
	})
}

func call[T any](fn func(T) error, v T) error {
	if fn == nil {
		return nil
	}
	return fn(v)
}

// exportRule hands v one rule, its texts and its events.
func exportRule(r Reader, id string, v ExportVisitor) error {
	row, ok, err := r.Rule(id)
	if err != nil || !ok {
		return err
	}
	if err := call(v.Rule, row); err != nil {
		return err
	}
	texts, err := r.RuleTexts(id)
	if err != nil {
		return err
	}
	for _, x := range texts {
		if err := call(v.Text, x); err != nil {
			return err
		}
	}
	for after := int64(0); ; {
		evs, err := r.Events(id, after, MaxHistoryLimit)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if err := call(v.Event, e); err != nil {
				return err
			}
		}
		if len(evs) < MaxHistoryLimit {
			return nil
		}
		after = evs[len(evs)-1].EventID
	}
}

// exportOrder orders rules by id, except that an exception proposal comes
// after the rule it is an exception to (which an import inserts first).
func exportOrder(rules []engine.Rule) []engine.Rule {
	depth := make(map[string]int, len(rules))
	byID := make(map[string]*engine.Rule, len(rules))
	for i := range rules {
		byID[rules[i].RuleID] = &rules[i]
	}
	var depthOf func(id string, seen int) int
	depthOf = func(id string, seen int) int {
		r := byID[id]
		if r == nil || r.ExceptionOf == "" || seen > len(rules) {
			return 0
		}
		if d, ok := depth[id]; ok {
			return d
		}
		d := 1 + depthOf(r.ExceptionOf, seen+1)
		depth[id] = d
		return d
	}
	out := slices.Clone(rules)
	slices.SortStableFunc(out, func(a, b engine.Rule) int { return depthOf(a.RuleID, 0) - depthOf(b.RuleID, 0) })
	return out
}
