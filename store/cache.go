package store

import (
	"slices"
	"strings"
	"sync"

	"github.com/lexsona/lexsona/engine"
)

var (
	qVersions = sqlq(`SELECT (SELECT value FROM store_counters WHERE name = 'rules'),
	(SELECT value FROM store_counters WHERE name = 'config')`)
	qActiveRules  = sqlq(`SELECT ` + ruleCols + ` FROM persona_rules WHERE status = 'active-eligible'`)
	qChangedRules = sqlq(`SELECT ` + ruleCols + ` FROM persona_rules WHERE row_version > ?`)
	qRemovedRules = sqlq(`SELECT rule_id FROM rules_removed WHERE version > ?`)
)

// cacheScopes bounds how many per-scope rule lists the cache keeps.
const cacheScopes = 64

// rulesCache holds every active-eligible rule and the config, as of the
// store_counters values rulesVer and configVer. Triggers bump those counters
// on every change (from any process) and stamp each changed rule row with the
// new value, and log removed ids in rules_removed, so a refresh reads only
// what changed since: after one correction, one row.
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

// reset empties the cache; the next read reloads everything.
func (c *rulesCache) reset() {
	c.mu.Lock()
	c.loaded, c.hasConfig, c.all, c.pos, c.scoped = false, false, nil, nil, nil
	c.mu.Unlock()
}

// getIfFresh is get when the cache is current: it reads the counters outside
// any transaction and reports false (without reading more) when they moved.
func (c *rulesCache) getIfFresh(r runner, s engine.Scope) ([]engine.Rule, engine.Config, bool, error) {
	var rv, cv int64
	if err := r.queryRow(qVersions).Scan(&rv, &cv); err != nil {
		return nil, engine.Config{}, false, dbErr("read versions", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded || !c.hasConfig || rv > c.rulesVer || cv > c.configVer {
		return nil, engine.Config{}, false, nil
	}
	return c.scope(s), c.config, true, nil
}

// get returns the active-eligible rules whose scope columns admit s (the SQL
// half of engine.Scope.Matches; tags are left to the caller), sorted by
// rule_id, and the config, refreshing the cache from r's read transaction.
func (c *rulesCache) get(r runner, s engine.Scope) ([]engine.Rule, engine.Config, error) {
	var rv, cv int64
	if err := r.queryRow(qVersions).Scan(&rv, &cv); err != nil {
		return nil, engine.Config{}, dbErr("read versions", err)
	}
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
func (c *rulesCache) refresh(r runner, rv int64) error {
	c.scoped = nil
	if !c.loaded {
		c.all = c.all[:0]
		if err := r.scan(qActiveRules, nil, func(sc scanner) error {
			rule, err := scanRule(sc)
			c.all = append(c.all, rule)
			return err
		}); err != nil {
			return err
		}
		c.reindex()
		c.loaded, c.rulesVer = true, rv
		return nil
	}
	gone := map[string]bool{}
	if err := r.scan(qRemovedRules, []any{c.rulesVer}, func(sc scanner) error {
		var id string
		err := sc.Scan(&id)
		gone[id] = true
		return err
	}); err != nil {
		return err
	}
	var added []engine.Rule
	if err := r.scan(qChangedRules, []any{c.rulesVer}, func(sc scanner) error {
		rule, err := scanRule(sc)
		if err != nil {
			return err
		}
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
		return nil
	}); err != nil {
		return err
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
