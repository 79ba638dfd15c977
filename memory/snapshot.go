package memory

import (
	"context"
	"slices"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Snapshot builds the persona of one context: the stored config, the
// active-eligible rules that may apply there (the store's rule cache, which
// reads two counters per call and, when a write of any process moved them,
// only the rules changed since) and engine.BuildSnapshot, for the scope
// req.Scope parsed (engine.ParseScope); a zero req.Now is now. With req.Trace, the
// decisions cover the active-eligible rules whose environment, project and
// agent family admit the scope. Errors: EINVALID naming a bad scope field
// or for a negative max; the store's.
func Snapshot(ctx context.Context, db *store.DB, req engine.SnapshotRequest) (engine.Snapshot, error) {
	s, err := engine.ParseScope(req.Scope)
	if err != nil {
		return engine.Snapshot{}, err
	}
	req.Scope = s
	if req.Max < 0 {
		return engine.Snapshot{}, engine.Errorf(engine.EINVALID, "snapshot max %d: want 0 (the configured default) or more", req.Max)
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	rules, cfg, err := db.ScopeRules(ctx, req.Scope)
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
