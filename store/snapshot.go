package store

import (
	"context"
	"slices"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// scopeRules returns the cached active-eligible rules whose scope columns
// admit s, and the config, refreshed in one read transaction.
func (db *DB) scopeRules(ctx context.Context, s engine.Scope) (rules []engine.Rule, cfg engine.Config, err error) {
	// Fast path: one query, no transaction, when nothing changed.
	var ok bool
	if rules, cfg, ok, err = db.cache.getIfFresh(db.reader(ctx), s); ok || err != nil {
		return rules, cfg, err
	}
	err = db.drv.Read(ctx, func(r Reader) error {
		rules, cfg, err = db.cache.get(r, s)
		return err
	})
	return rules, cfg, err
}

// RulesForScope returns the active-eligible rules that apply in scope s
// (engine.Scope.Matches), ordered by rule_id. They come from the store's rule
// cache (see Snapshot). Errors: EINVALID naming a bad scope field.
func (db *DB) RulesForScope(ctx context.Context, s engine.Scope) ([]engine.Rule, error) {
	s, err := engine.ParseScope(s)
	if err != nil {
		return nil, err
	}
	rules, _, err := db.scopeRules(ctx, s)
	if err != nil {
		return nil, err
	}
	out := []engine.Rule{}
	for _, r := range rules {
		if r.Scope.Matches(s) {
			r.Scope.ContextTags = slices.Clone(r.Scope.ContextTags)
			r.Scope.ExcludeTags = slices.Clone(r.Scope.ExcludeTags)
			out = append(out, r)
		}
	}
	return out, nil
}

// Snapshot builds the persona of one context: the stored config, the rules
// that may apply there and engine.BuildSnapshot. A zero req.Now is now.
// Active-eligible rules and the config are cached in memory: each snapshot
// reads two counters and, when a write (of any process) moved them, only the
// rules changed since. With req.Trace, the decisions cover the active-eligible
// rules whose environment, project and agent family admit the scope. Errors:
// EINVALID naming a bad scope field or a negative max.
func (db *DB) Snapshot(ctx context.Context, req engine.SnapshotRequest) (engine.Snapshot, error) {
	s, err := engine.ParseScope(req.Scope)
	if err != nil {
		return engine.Snapshot{}, err
	}
	if req.Max < 0 {
		return engine.Snapshot{}, engine.Errorf(engine.EINVALID, "snapshot max %d: want 0 (the configured default) or more", req.Max)
	}
	req.Scope = s
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	rules, cfg, err := db.scopeRules(ctx, s)
	if err != nil {
		return engine.Snapshot{}, err
	}
	snap := engine.BuildSnapshot(rules, req, cfg)
	for i := range snap.Rules { // unshare the cache's tag lists
		sc := &snap.Rules[i].Scope
		sc.ContextTags, sc.ExcludeTags = slices.Clone(sc.ContextTags), slices.Clone(sc.ExcludeTags)
	}
	return snap, nil
}
