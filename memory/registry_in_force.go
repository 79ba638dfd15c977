package memory

import (
	"context"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// syncInForce makes src one of the registries in force: it parses it
// (opts.AllowEmpty accepts one without rules, which archives every rule of
// its source), syncs the default pack first into a store that has no
// registry in force yet (defaultFirst), syncs src's definitions into the store as the source
// reg.Name() and records its YAML in the same transaction (Sync's first
// step), fits a corpus-dependent embedder (the lexical one) on the union of
// every registry now in force (InForce), and embeds the texts that have no
// vector for the embedder's identity (Sync's second step). Another source's
// rules are never touched: with an embedder whose identity does not depend
// on the registries, they are not embedded again; with the lexical one,
// only when the union's vocabulary changed. It is what `lexsona registry
// sync` and POST /v1/registry/sync both do.
//
// Errors: src's parse errors (EINVALID with every problem, ETOOLARGE;
// nothing changes then), Sync's, InForce's.
func syncInForce(ctx context.Context, db *store.DB, emb models.Embedder, src registry.Source, opts SyncOptions) (*registry.Registry, Summary, error) {
	reg, err := src.Parse(opts.AllowEmpty)
	if err != nil {
		return nil, Summary{}, err
	}
	opts = opts.withDefaults()
	if err := defaultFirst(ctx, db, emb, reg, opts); err != nil {
		return reg, Summary{}, err
	}
	sum, err := syncSource(ctx, db, emb, reg, src.YAML, opts)
	if err != nil {
		return reg, sum, err
	}
	if _, err := fitInForce(ctx, db, emb); err != nil {
		return reg, sum, err
	}
	return reg, sum, embedFitted(ctx, db, emb, opts, &sum)
}

// defaultFirst syncs the default pack's definitions, recording it in force,
// into a store that has no registry in force yet, before reg when reg is
// another source: the default pack is in force in every store until its own
// source is synced (an empty registry named "default" removes it). Errors:
// ApplyRegistry's.
func defaultFirst(ctx context.Context, db *store.DB, emb models.Embedder, reg *registry.Registry, opts SyncOptions) error {
	first, err := needsDefaultFirst(ctx, db, reg)
	if err != nil || !first {
		return err
	}
	_, err = syncSource(ctx, db, emb, registry.Default(), registry.DefaultYAML(), opts)
	return err
}

// needsDefaultFirst reports whether syncing reg must sync the default pack
// first: reg is another source and the store has no registry in force.
func needsDefaultFirst(ctx context.Context, db *store.DB, reg *registry.Registry) (bool, error) {
	if reg.Name() == DefaultRegistry {
		return false, nil
	}
	files, err := db.Registries(ctx)
	return err == nil && len(files) == 0, err
}

// ensureInForce readies the registries in force for emb at start-up: with
// none recorded it syncs the default pack (SyncInForce of DefaultSource);
// otherwise it fits a corpus-dependent embedder on their union and embeds
// the texts still missing a vector (a run interrupted earlier resumes; with
// nothing missing it writes nothing). It returns the union (InForce).
// Errors: SyncInForce's, InForce's, Sync's embedding errors.
func ensureInForce(ctx context.Context, db *store.DB, emb models.Embedder, opts SyncOptions) (*registry.Registry, Summary, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return nil, Summary{}, err
	}
	if len(files) == 0 {
		return syncInForce(ctx, db, emb, registry.DefaultSource(), opts)
	}
	union, err := fitInForce(ctx, db, emb)
	if err != nil {
		return nil, Summary{}, err
	}
	sum := Summary{Registry: union.Name(), Embedder: emb.Backend()}
	return union, sum, embedFitted(ctx, db, emb, opts.withDefaults(), &sum)
}

// embedFitted is embedMissing for the embedder fitted on the registries in
// force; then, when emb is a models.Fitter, whose identity follows the
// registries (the lexical vocabulary) and a new fit was just stored, it
// deletes the vectors of its earlier fits, which nothing loads any more
// (store.PruneEmbeddings). A store nothing was embedded into is not written.
func embedFitted(ctx context.Context, db *store.DB, emb models.Embedder, opts SyncOptions, sum *Summary) error {
	if err := embedMissing(ctx, db, emb, opts, sum); err != nil {
		return err
	}
	if _, ok := emb.(models.Fitter); !ok || sum.Embedded == 0 {
		return nil // no new fit was stored, so no earlier one went stale
	}
	n, err := db.PruneEmbeddings(ctx, opts.Now, sum.Model)
	sum.Pruned = int(n)
	return err
}

// fitInForce fits emb, when it is a models.Fitter, on the texts of the
// registries in force, and returns them merged. Errors: InForce's.
func fitInForce(ctx context.Context, db *store.DB, emb models.Embedder) (*registry.Registry, error) {
	union, err := InForce(ctx, db)
	if err != nil {
		return nil, err
	}
	if f, ok := emb.(models.Fitter); ok {
		f.Fit(union.Texts())
	}
	return union, nil
}

// InForce returns the registries in force, merged into one (Merge): every
// source recorded by SyncInForce (store.DB.Registries), by name; the
// default pack when none is recorded. Errors: the store's; EINVALID naming
// a recorded registry this build cannot parse.
func InForce(ctx context.Context, db *store.DB) (*registry.Registry, error) {
	return InForceWith(ctx, db, nil)
}

// InForceWith is InForce with reg in force too, in place of the recorded
// source of the same name: the registries that would be in force once reg
// is synced. A nil reg is InForce. Errors: InForce's.
func InForceWith(ctx context.Context, db *store.DB, reg *registry.Registry) (*registry.Registry, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return nil, err
	}
	var regs []*registry.Registry
	for _, f := range files {
		if reg != nil && f.Name == reg.Name() {
			continue
		}
		r, err := registry.ParseWith(f.YAML, registry.ParseOptions{File: f.Name, Name: f.Name, AllowEmpty: true})
		if err != nil {
			return nil, engine.Errorf(engine.EINVALID, "registry %s in force no longer parses: sync it again: %s", f.Name, engine.ErrorMessage(err))
		}
		regs = append(regs, r)
	}
	if reg != nil {
		regs = append(regs, reg)
	}
	if len(regs) == 0 {
		return registry.Default(), nil
	}
	slices.SortFunc(regs, func(a, b *registry.Registry) int { return strings.Compare(a.Name(), b.Name()) })
	return registry.Merge(regs...), nil
}
