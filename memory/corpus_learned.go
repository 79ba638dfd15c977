package memory

import (
	"context"
	"runtime"
	"sync"
	"time"
	"weak"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// learnedMaxAge is how long the corpus trusts the list of accepted
// confirmations it read: a confirmation accepted by this process or another
// one reaches the classifier's index within it.
const learnedMaxAge = 2 * time.Second

// learnedVersionSpan is the factor that folds the number of learned
// exemplars into the corpus version (see corpus.Version): the store lists at
// most store.MaxPendingLimit confirmations at once, fewer than this.
const learnedVersionSpan = 1 << 14

// learnedState is the list of accepted confirmations of one store, as last
// read.
type learnedState struct {
	mu      sync.Mutex
	learned []classifier.Learned
	at      time.Time
}

// learnedStates holds each open store's learnedState, dropped when the
// store is garbage collected.
var learnedStates sync.Map // weak.Pointer[store.DB] → *learnedState

// learnedOf returns db's learnedState.
func learnedOf(db *store.DB) *learnedState {
	key := weak.Make(db)
	if st, ok := learnedStates.Load(key); ok {
		return st.(*learnedState)
	}
	st, loaded := learnedStates.LoadOrStore(key, &learnedState{})
	if !loaded {
		runtime.AddCleanup(db, func(k weak.Pointer[store.DB]) { learnedStates.Delete(k) }, key)
	}
	return st.(*learnedState)
}

// forget makes the next load read the store again.
func (st *learnedState) forget() {
	st.mu.Lock()
	st.at = time.Time{}
	st.mu.Unlock()
}

// load returns the learned exemplars: the accepted confirmations of db,
// oldest first, read again when the last read is older than maxAge. An
// accepted reinforcement affirms the rule it was resolved to, an accepted
// counterexample is a contrary exemplar of it. Corrections the classifier
// matched by itself are not learned from: only a person's confirmation
// makes a text an exemplar, so the classifier's mistakes do not teach it.
// The store lists the oldest store.MaxPendingLimit confirmations.
func (st *learnedState) load(ctx context.Context, db *store.DB, maxAge time.Duration) ([]classifier.Learned, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.at.IsZero() && time.Since(st.at) < maxAge {
		return st.learned, nil
	}
	ps, err := db.ListPending(ctx, engine.PendingAccepted, store.MaxPendingLimit)
	if err != nil {
		return nil, err
	}
	out := make([]classifier.Learned, 0, len(ps))
	for _, p := range ps {
		if p.RuleID == "" || p.Text == "" {
			continue
		}
		out = append(out, classifier.Learned{RuleID: p.RuleID, Text: p.Text, Affirms: p.Polarity != engine.Counter})
	}
	st.learned, st.at = out, time.Now()
	return out, nil
}

// Learned returns the corrections users confirmed, oldest first (see
// learnedState.load). Its errors are the store's.
func (c corpus) Learned(ctx context.Context) ([]classifier.Learned, error) {
	return learnedOf(c.db).load(ctx, c.db, learnedMaxAge)
}
