package registry

import (
	"context"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// Source is a registry to sync: its YAML and what names it. Its source name
// is the YAML's top-level name:, else Name, else File's base name; an
// upload (no File) must have name: or Name.
type Source struct {
	YAML []byte
	// File is the file the YAML was read from (a path, "default" for the
	// default pack, "" for an upload): problems are reported under it.
	File string
	// Name is the source name the caller gives; the YAML's name:, when it
	// has one, must be the same.
	Name string
}

// DefaultSource is the default pack (source "default") as a Source.
func DefaultSource() Source { return Source{File: "default", YAML: DefaultYAML()} }

// parse parses src, accepting a registry without rules when allowEmpty.
// Errors: ParseWith's; EINVALID when the YAML's name: differs from src.Name.
func (src Source) parse(allowEmpty bool) (*Registry, error) {
	reg, err := ParseWith(src.YAML, ParseOptions{File: src.File, Name: src.Name, AllowEmpty: allowEmpty})
	if err != nil {
		return nil, err
	}
	if src.Name != "" && reg.Name() != src.Name {
		return nil, engine.Errorf(engine.EINVALID, "the registry names itself %q (name:) but the sync names it %q: give one name, or the same in both", reg.Name(), src.Name)
	}
	return reg, nil
}

// SyncInForce makes src one of the registries in force: it parses it
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
func SyncInForce(ctx context.Context, db *store.DB, emb models.Embedder, src Source, opts SyncOptions) (*Registry, Summary, error) {
	reg, err := src.parse(opts.AllowEmpty)
	if err != nil {
		return nil, Summary{}, err
	}
	opts = opts.withDefaults()
	if err := defaultFirst(ctx, db, emb, reg, opts); err != nil {
		return reg, Summary{}, err
	}
	sum, err := syncDefinitions(ctx, db, emb, reg, src.YAML, opts)
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
// store.SyncRegistry's.
func defaultFirst(ctx context.Context, db *store.DB, emb models.Embedder, reg *Registry, opts SyncOptions) error {
	first, err := needsDefaultFirst(ctx, db, reg)
	if err != nil || !first {
		return err
	}
	_, err = syncDefinitions(ctx, db, emb, Default(), DefaultYAML(), opts)
	return err
}

// needsDefaultFirst reports whether syncing reg must sync the default pack
// first: reg is another source and the store has no registry in force.
func needsDefaultFirst(ctx context.Context, db *store.DB, reg *Registry) (bool, error) {
	if reg.Name() == store.DefaultRegistry {
		return false, nil
	}
	files, err := db.Registries(ctx)
	return err == nil && len(files) == 0, err
}

// EnsureInForce readies the registries in force for emb at start-up: with
// none recorded it syncs the default pack (SyncInForce of DefaultSource);
// otherwise it fits a corpus-dependent embedder on their union and embeds
// the texts still missing a vector (a run interrupted earlier resumes; with
// nothing missing it writes nothing). It returns the union (InForce).
// Errors: SyncInForce's, InForce's, Sync's embedding errors.
func EnsureInForce(ctx context.Context, db *store.DB, emb models.Embedder, opts SyncOptions) (*Registry, Summary, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return nil, Summary{}, err
	}
	if len(files) == 0 {
		return SyncInForce(ctx, db, emb, DefaultSource(), opts)
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
	n, err := db.PruneEmbeddings(ctx, sum.Model)
	sum.Pruned = int(n)
	return err
}

// fitInForce fits emb, when it is a models.Fitter, on the texts of the
// registries in force, and returns them merged. Errors: InForce's.
func fitInForce(ctx context.Context, db *store.DB, emb models.Embedder) (*Registry, error) {
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
func InForce(ctx context.Context, db *store.DB) (*Registry, error) {
	return InForceWith(ctx, db, nil)
}

// InForceWith is InForce with reg in force too, in place of the recorded
// source of the same name: the registries that would be in force once reg
// is synced. A nil reg is InForce. Errors: InForce's.
func InForceWith(ctx context.Context, db *store.DB, reg *Registry) (*Registry, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return nil, err
	}
	var regs []*Registry
	for _, f := range files {
		if reg != nil && f.Name == reg.Name() {
			continue
		}
		r, err := ParseWith(f.YAML, ParseOptions{File: f.Name, Name: f.Name, AllowEmpty: true})
		if err != nil {
			return nil, engine.Errorf(engine.EINVALID, "registry %s in force no longer parses: sync it again: %s", f.Name, engine.ErrorMessage(err))
		}
		regs = append(regs, r)
	}
	if reg != nil {
		regs = append(regs, reg)
	}
	if len(regs) == 0 {
		return Default(), nil
	}
	slices.SortFunc(regs, func(a, b *Registry) int { return strings.Compare(a.Name(), b.Name()) })
	return Merge(regs...), nil
}
