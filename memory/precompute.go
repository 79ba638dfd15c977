package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// DefaultBatchSize is how many distinct texts Precompute embeds and stores per
// transaction when SyncOptions.BatchSize is not set.
const DefaultBatchSize = 32

// SyncOptions tune a registry sync and the precompute job. The zero value is ready to use.
type SyncOptions struct {
	// BatchSize is the number of distinct texts embedded and stored at once;
	// <= 0 means DefaultBatchSize.
	BatchSize int
	// Progress is told how many texts are embedded as the job goes (one
	// step, "embedding rule texts"); nil is silent.
	Progress models.Progress
	// Now is the time recorded on the sync's events; zero means time.Now().
	Now time.Time
	// AllowEmpty lets SyncInForce sync a registry without rules, which
	// archives every rule of its source; without it such a registry is
	// refused.
	AllowEmpty bool
}

// withDefaults fills the zero fields.
func (o SyncOptions) withDefaults() SyncOptions {
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return o
}

// Summary is what a registry sync or the precompute job did. Embedded + Skipped is the number of texts of
// rules that are not archived (registry, user and candidate rules alike).
type Summary struct {
	Registry string `json:"registry"` // the source synced, or the sources in force joined by "+"
	Added    int    `json:"added"`    // rules new to the store
	Updated  int    `json:"updated"`  // rules whose definition changed, or restored from archive
	Archived int    `json:"archived"` // registry rules no longer in the registry
	Kept     int    `json:"kept"`     // ids defined here that name a user's own rule, left as it is
	Embedded int    `json:"embedded"` // texts embedded by this run
	Skipped  int    `json:"skipped"`  // texts that already had a vector for this model
	Pruned   int    `json:"pruned"`   // vectors of an earlier lexical vocabulary, deleted
	Embedder string `json:"embedder"` // the backend, e.g. "ort" or "lexical"
	Model    string `json:"model"`    // the model identity vectors are stored under
}

// Precompute is the registry embedding precompute job. In one transaction it makes
// the store's definitions agree with reg, a source of its own named
// reg.Name() (new rules added at the prior, changed definitions updated
// without touching evidence, rules of that source missing from reg
// archived, never deleted, other sources' rules left alone) and makes each
// synced rule's contrary texts those reg lists (Registry.Contrary); then it
// embeds every text of a non-archived rule that has no vector for emb's
// identity yet (embedMissing). A nil reg means the default pack. Sync does
// not record reg as in force (SyncInForce does). The lexical embedder's
// identity includes its IDF fit: fit it before calling Sync, not after.
//
// Errors: those of ApplyRegistry (EINVALID naming a bad definition,
// ECONFLICT for an id of another source; nothing is written then; the
// read-only fault on a database that cannot be written), then
// embedMissing's. The Summary is valid up to the failure in every case.
func Precompute(ctx context.Context, db *store.DB, emb models.Embedder, reg *registry.Registry, opts SyncOptions) (Summary, error) {
	if reg == nil {
		reg = registry.Default()
	}
	opts = opts.withDefaults()
	sum, err := syncSource(ctx, db, emb, reg, nil, opts)
	if err != nil {
		return sum, err
	}
	return sum, embedMissing(ctx, db, emb, opts, &sum)
}

// syncDefinitions is ApplyRegistry of reg (and yaml, recorded as in
// force when not nil) at opts.Now, counted in a Summary of emb.
func syncSource(ctx context.Context, db *store.DB, emb models.Embedder, reg *registry.Registry, yaml []byte, opts SyncOptions) (Summary, error) {
	sum := Summary{Registry: reg.Name(), Embedder: emb.Backend(), Model: emb.Identity().ID()}
	res, err := ApplyRegistry(ctx, db, registrySync(reg, yaml, opts.Now.UTC()))
	if err != nil {
		return sum, err
	}
	sum.Added, sum.Updated, sum.Archived, sum.Kept = len(res.Added), len(res.Updated), len(res.Archived), len(res.Kept)
	return sum, nil
}

// embedMissing embeds every text of a non-archived rule that has no vector
// for emb's identity yet, in batches of opts.BatchSize distinct texts, each
// stored in its own transaction, counting them in sum (whose Model becomes
// emb's identity). Interrupted (ctx cancelled, an embedder failure), it keeps
// every batch already embedded and a second run resumes with the rest; with
// nothing missing it is a no-op.
//
// Errors: EUNAVAILABLE when ctx was cancelled while embedding (the error
// also matches context.Canceled / DeadlineExceeded with errors.Is; sum says
// how far it got); the embedder's errors, wrapped with the rule they were
// embedding; EINTERNAL for store failures and for an embedder returning the
// wrong number of vectors.
func embedMissing(ctx context.Context, db *store.DB, emb models.Embedder, opts SyncOptions, sum *Summary) error {
	modelID := emb.Identity().ID()
	sum.Model = modelID
	total, err := db.CountTexts(ctx)
	if err != nil {
		return err
	}
	missing, err := db.MissingEmbeddings(ctx, modelID)
	if err != nil {
		return err
	}
	sum.Skipped = max(0, total-len(missing))
	if len(missing) == 0 {
		return nil
	}
	done := models.Count(opts.Progress, "embedding rule texts", len(missing))
	for _, b := range embedBatches(missing, opts.BatchSize) {
		if err := ctx.Err(); err != nil {
			return interrupted(sum.Embedded, len(missing), err)
		}
		vecs, err := emb.Embed(ctx, b.texts)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return interrupted(sum.Embedded, len(missing), cerr)
			}
			return fmt.Errorf("embedding the texts of rule %s: %w", b.items[0].RuleID, err)
		}
		if len(vecs) != len(b.texts) {
			return fmt.Errorf("embedder %s returned %d vectors for %d texts", sum.Embedder, len(vecs), len(b.texts))
		}
		items, vectors := b.expand(vecs)
		// A batch that is embedded is stored even if ctx was cancelled meanwhile:
		// the write is short, and it is the work a rerun would otherwise redo.
		if err := db.PutEmbeddings(context.WithoutCancel(ctx), opts.Now, modelID, items, vectors); err != nil {
			return err
		}
		sum.Embedded += len(items)
		done.Add(len(items))
	}
	return nil
}

// interrupted is the error of a job stopped by its context: an EUNAVAILABLE
// *engine.Error that also wraps the context's error.
func interrupted(done, total int, cause error) error {
	return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE,
		"registry sync interrupted after embedding %d of %d texts; run it again to resume", done, total), cause)
}
