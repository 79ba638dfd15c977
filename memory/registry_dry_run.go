package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// RegistryPlan is what a registry sync of a source would do to the store's rules: the
// rule ids it would add, update (a definition changed, restored from the
// archive, or taken over from a registry that dropped it), archive (its
// source's rules it no longer defines), keep (ids it defines that name a
// rule created outside any registry, left as it is) and leave unchanged
// (the rest of its rules, already in force as defined). DefaultFirst is true
// when the store has no registry in force yet, so the sync would first sync
// the default pack (whose own changes are not listed).
type RegistryPlan struct {
	Registry     string   `json:"registry"`
	DryRun       bool     `json:"dry_run"`
	Added        []string `json:"added"`
	Updated      []string `json:"updated"`
	Archived     []string `json:"archived"`
	Kept         []string `json:"kept"`
	Unchanged    []string `json:"unchanged"`
	DefaultFirst bool     `json:"default_first,omitempty"`
}

// planInForce is syncInForce's dry run: it parses src as SyncInForce does
// and runs the store's sync of its definitions (after the default pack's
// when defaultFirst would) through PlanRegistrySyncs, a write transaction
// that is rolled back, so the plan comes from the very decisions a sync
// makes. Nothing is written, not the YAML, not an embedding, and no
// embedder is needed. A plan holds until the next write.
//
// Errors: those of SyncInForce for a registry a sync would refuse
// (EINVALID with every problem, ETOOLARGE, ECONFLICT for a rule id of
// another source); on a database opened read-only, EUNAVAILABLE.
func planInForce(ctx context.Context, db *store.DB, src registry.Source, opts SyncOptions) (*registry.Registry, RegistryPlan, error) {
	reg, err := src.Parse(opts.AllowEmpty)
	if err != nil {
		return nil, RegistryPlan{}, err
	}
	at := opts.withDefaults().Now.UTC()
	plan := RegistryPlan{Registry: reg.Name(), DryRun: true}
	var syncs []RegistrySync
	first, err := needsDefaultFirst(ctx, db, reg)
	if err != nil {
		return reg, plan, err
	}
	if first {
		plan.DefaultFirst = true
		syncs = append(syncs, registrySync(registry.Default(), nil, at))
	}
	res, err := PlanRegistrySyncs(ctx, db, append(syncs, registrySync(reg, nil, at))...)
	if err != nil {
		return reg, plan, err
	}
	last := res[len(res)-1]
	plan.Added, plan.Updated, plan.Archived, plan.Kept = last.Added, last.Updated, last.Archived, last.Kept
	plan.Unchanged = unchanged(reg, plan)
	return reg, plan, nil
}

// unchanged lists, in file order, reg's rule ids the plan neither adds,
// updates nor keeps.
func unchanged(reg *registry.Registry, plan RegistryPlan) []string {
	listed := map[string]bool{}
	for _, ids := range [][]string{plan.Added, plan.Updated, plan.Kept} {
		for _, id := range ids {
			listed[id] = true
		}
	}
	out := []string{}
	for _, d := range reg.Definitions() {
		if !listed[d.Rule.RuleID] {
			out = append(out, d.Rule.RuleID)
		}
	}
	return out
}

// storeSync is the store's sync of r's definitions and contrary texts at
// at, recording yaml as the source's registry in force when not nil.
func registrySync(r *registry.Registry, yaml []byte, at time.Time) RegistrySync {
	return RegistrySync{Name: r.Name(), Definitions: r.Definitions(), Contrary: r.ContraryTexts, YAML: yaml, At: at}
}
