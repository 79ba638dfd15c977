package registry

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// DefaultBatchSize is how many distinct texts Sync embeds and stores per
// transaction when SyncOptions.BatchSize is not set.
const DefaultBatchSize = 32

// SyncOptions tune Sync. The zero value is ready to use.
type SyncOptions struct {
	// BatchSize is the number of distinct texts embedded and stored at once;
	// <= 0 means DefaultBatchSize.
	BatchSize int
	// Progress gets a progress bar while texts are embedded, when it is an
	// *os.File attached to a terminal; otherwise nothing is written to it.
	Progress io.Writer
	// Now is the time recorded on the sync's events; zero means time.Now().
	Now time.Time
	// Name and YAML, when YAML is not nil, are recorded as the registry in
	// force together with the definitions (SyncInForce sets them).
	Name string
	YAML []byte
}

// Summary is what a Sync did. Embedded + Skipped is the number of texts of
// rules that are not archived (registry, user and candidate rules alike).
type Summary struct {
	Added    int    `json:"added"`    // rules new to the store
	Updated  int    `json:"updated"`  // rules whose definition changed, or restored from archive
	Archived int    `json:"archived"` // registry rules no longer in the registry
	Kept     int    `json:"kept"`     // ids defined here that name a user's own rule, left as it is
	Embedded int    `json:"embedded"` // texts embedded by this run
	Skipped  int    `json:"skipped"`  // texts that already had a vector for this model
	Embedder string `json:"embedder"` // the backend, e.g. "ort" or "lexical"
	Model    string `json:"model"`    // the model identity vectors are stored under
}

// Sync is the registry embedding precompute job. In one transaction it makes
// the store's definitions agree with reg (new rules added at the prior,
// changed definitions updated without touching evidence, registry rules
// missing from reg archived, never deleted), makes each synced rule's
// contrary texts those reg lists (Registry.Contrary) and, when opts.YAML is
// set, records it as the registry in force (store.SyncRegistry): a crash
// leaves the old registry or the new one, never a mix; then it
// embeds every text of a non-archived rule that has no vector for emb's
// identity yet, in batches, storing each batch in its own transaction. Interrupted (ctx cancelled, an
// embedder failure), it keeps every batch already embedded and a second run
// resumes with the rest; a run with nothing new is a no-op. A nil reg means
// the default pack. The lexical embedder's identity includes its IDF fit:
// fit it (on reg.Texts()) before calling Sync, not after.
//
// Errors: those of store.SyncRegistry (EINVALID naming a bad definition;
// nothing is written then; the read-only fault on a database that cannot be
// written, unless reg is already in force there and has every embedding); EUNAVAILABLE when ctx was cancelled while
// embedding (the error also matches context.Canceled / DeadlineExceeded with
// errors.Is; the summary says how far it got); the embedder's errors, wrapped
// with the rule they were embedding; EINTERNAL for store failures and for an
// embedder returning the wrong number of vectors. The Summary is valid up to
// the failure in every case.
func Sync(ctx context.Context, db *store.DB, emb models.Embedder, reg *Registry, opts SyncOptions) (Summary, error) {
	if reg == nil {
		reg = Default()
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	modelID := emb.Identity().ID()
	sum := Summary{Embedder: emb.Backend(), Model: modelID}

	res, err := db.SyncRegistry(ctx, store.RegistrySync{Definitions: reg.Definitions(), Contrary: reg.contraryTexts,
		Name: opts.Name, YAML: opts.YAML, At: opts.Now.UTC()})
	if err != nil {
		return sum, err
	}
	sum.Added, sum.Updated, sum.Archived, sum.Kept = len(res.Added), len(res.Updated), len(res.Archived), len(res.Kept)

	total, err := db.CountTexts(ctx)
	if err != nil {
		return sum, err
	}
	missing, err := db.MissingEmbeddings(ctx, modelID)
	if err != nil {
		return sum, err
	}
	sum.Skipped = max(0, total-len(missing))
	if len(missing) == 0 {
		return sum, nil
	}

	batches := plan(missing, opts.BatchSize)
	bar := models.NewBar(opts.Progress, len(missing), "embedding rule texts")
	defer bar.Finish()
	for _, b := range batches {
		if err := ctx.Err(); err != nil {
			return sum, interrupted(sum.Embedded, len(missing), err)
		}
		vecs, err := emb.Embed(ctx, b.texts)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return sum, interrupted(sum.Embedded, len(missing), cerr)
			}
			return sum, fmt.Errorf("embedding the texts of rule %s: %w", b.items[0].RuleID, err)
		}
		if len(vecs) != len(b.texts) {
			return sum, fmt.Errorf("embedder %s returned %d vectors for %d texts", sum.Embedder, len(vecs), len(b.texts))
		}
		items, vectors := b.expand(vecs)
		// A batch that is embedded is stored even if ctx was cancelled meanwhile:
		// the write is short, and it is the work a rerun would otherwise redo.
		if err := db.PutEmbeddings(context.WithoutCancel(ctx), modelID, items, vectors); err != nil {
			return sum, err
		}
		sum.Embedded += len(items)
		bar.Add(len(items))
	}
	return sum, nil
}

// contraryTexts maps every rule of r, but those in kept (a user's own rule
// with a registry rule's id), to its contrary phrasings (none included).
func (r *Registry) contraryTexts(kept []string) map[string][]string {
	skip := make(map[string]bool, len(kept))
	for _, id := range kept {
		skip[id] = true
	}
	out := make(map[string][]string, len(r.defs))
	for i, d := range r.defs {
		if !skip[d.Rule.RuleID] {
			out[d.Rule.RuleID] = r.contrary[i]
		}
	}
	return out
}

// interrupted is the error of a job stopped by its context: an EUNAVAILABLE
// *engine.Error that also wraps the context's error.
func interrupted(done, total int, cause error) error {
	return fmt.Errorf("%w: %w", engine.Errorf(engine.EUNAVAILABLE,
		"registry sync interrupted after embedding %d of %d texts; run it again to resume", done, total), cause)
}
