package store

import (
	"slices"
	"strings"
	"sync"

	"github.com/lexsona/lexsona/engine"
)

// cacheScopes bounds how many per-scope rule lists the cache keeps.
const cacheScopes = 64

// rulesCache holds every active-eligible rule and the config, as of the
// versions rulesVer and configVer (see Versions). The driver bumps those on
// every change (by any process), stamps each changed rule row with the new
// value and logs removed ids, so a refresh reads only what changed since:
// after one correction, one row.
//
// The lists handed out (per scope) are copies that are never modified, so
// callers may use them without the lock.
type rulesCache struct {
	mu        sync.Mutex
	loaded    bool
	rulesVer  int64
	all       []engine.Rule  // active-eligible rules, sorted by rule_id
	pos       map[string]int // rule_id → index in all
	scoped    map[[3]string][]engine.Rule
	configVer int64
	config    engine.Config
	hasConfig bool
}

// getIfFresh is get when the cache is current: it reads the counters outside
// any transaction and reports false (without reading more) when they moved.
func (c *rulesCache) getIfFresh(r Reader, s engine.Scope) ([]engine.Rule, engine.Config, bool, error) {
	v, err := r.Versions()
	if err != nil {
		return nil, engine.Config{}, false, err
	}
	rv, cv := v.Rules, v.Config
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded || !c.hasConfig || rv > c.rulesVer || cv > c.configVer {
		return nil, engine.Config{}, false, nil
	}
	return c.scope(s), c.config, true, nil
}

// get returns the active-eligible rules whose environment, project and
// agent family admit s (tags are left to the caller), sorted by
// rule_id, and the config, refreshing the cache from r's read transaction.
func (c *rulesCache) get(r Reader, s engine.Scope) ([]engine.Rule, engine.Config, error) {
	v, err := r.Versions()
	if err != nil {
		return nil, engine.Config{}, err
	}
	rv, cv := v.Rules, v.Config
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.hasConfig || cv > c.configVer {
		cfg, err := loadConfig(r)
		if err != nil {
			return nil, cfg, err
		}
		c.config, c.configVer, c.hasConfig = cfg, cv, true
	}
	// A reader whose transaction began before the cache's version may be
	// served the newer committed state.
	if !c.loaded || rv > c.rulesVer {
		if err := c.refresh(r, rv); err != nil {
			c.loaded, c.all, c.pos, c.scoped = false, nil, nil, nil
			return nil, c.config, err
		}
	}
	return c.scope(s), c.config, nil
}

// scope returns the cached list for s's scope columns, building it if needed.
// c.mu is held.
func (c *rulesCache) scope(s engine.Scope) []engine.Rule {
	key := [3]string{s.Environment, s.Project, s.AgentFamily}
	if list, ok := c.scoped[key]; ok {
		return list
	}
	admits := func(r *engine.Rule) bool {
		sc := &r.Scope
		return (sc.Environment == "" || sc.Environment == s.Environment) && (sc.Project == "" || sc.Project == s.Project) &&
			(sc.AgentFamily == "" || sc.AgentFamily == s.AgentFamily)
	}
	n := 0
	for i := range c.all {
		if admits(&c.all[i]) {
			n++
		}
	}
	list := make([]engine.Rule, 0, n)
	for i := range c.all {
		if admits(&c.all[i]) {
			list = append(list, c.all[i])
		}
	}
	if len(c.scoped) >= cacheScopes {
		c.scoped = nil
	}
	if c.scoped == nil {
		c.scoped = map[[3]string][]engine.Rule{}
	}
	c.scoped[key] = list
	return list
}

// refresh brings the cache to version rv: a full load the first time, then
// only the rows stamped after the cached version and the ids removed since.
func (c *rulesCache) refresh(r Reader, rv int64) error {
	c.scoped = nil
	if !c.loaded {
		all, err := r.ActiveRules()
		if err != nil {
			return err
		}
		c.all = all
		c.reindex()
		c.loaded, c.rulesVer = true, rv
		return nil
	}
	removed, err := r.RulesRemovedSince(c.rulesVer)
	if err != nil {
		return err
	}
	gone := make(map[string]bool, len(removed))
	for _, id := range removed {
		gone[id] = true
	}
	changed, err := r.RulesChangedSince(c.rulesVer)
	if err != nil {
		return err
	}
	var added []engine.Rule
	for _, rule := range changed {
		i, cached := c.pos[rule.RuleID]
		switch active := rule.Status == engine.StatusActiveEligible; {
		case active && cached && !gone[rule.RuleID]:
			c.all[i] = rule // in place: handed-out lists are copies
		case active: // new, or removed and created again: drop any old entry, append
			gone[rule.RuleID] = true
			added = append(added, rule)
		case cached:
			gone[rule.RuleID] = true
		}
	}
	if len(added) > 0 || len(gone) > 0 {
		kept := make([]engine.Rule, 0, len(c.all)+len(added))
		for _, rule := range c.all {
			if !gone[rule.RuleID] {
				kept = append(kept, rule)
			}
		}
		c.all = append(kept, added...)
		c.reindex()
	}
	c.rulesVer = rv
	return nil
}

func (c *rulesCache) reindex() {
	slices.SortFunc(c.all, func(a, b engine.Rule) int { return strings.Compare(a.RuleID, b.RuleID) })
	c.pos = make(map[string]int, len(c.all))
	for i := range c.all {
		c.pos[c.all[i].RuleID] = i
	}
}
