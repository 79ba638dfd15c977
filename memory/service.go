// Package memory is LexSona's use-case layer: every operation a user can
// perform — record a correction, classify, confirm, add/edit/archive/accept/
// reject a rule, sync a registry, persona, why, config — lives here once.
// It validates input once, decides with engine and the classifier, and
// persists through the store; the HTTP API, the MCP server and the CLI are
// thin adapters that parse, call a Service method and render its answer.
//
// Errors are *engine.Error values with the codes of engine/errors.go; every
// method's doc says which codes it returns.
package memory

import (
	"sync"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/store"
)

// Options configure a Service; the zero value gives the product's behaviour.
type Options struct {
	// Classifier configures the classifier (thresholds, guard, polarity…).
	Classifier classifier.Options
	// Now is the clock (time.Now when nil): the default time of a correction
	// and the moment a persona or why is evaluated at.
	Now func() time.Time
	// Bulk embeds registry syncs (the classifying embedder when nil): a
	// server gives its unbatched embedder, so that a sync's large batches
	// do not queue behind, or in front of, the requests' small ones.
	Bulk models.Embedder
}

// Service performs the use cases over one store with one embedder. It is
// safe for concurrent use.
type Service struct {
	db   *store.DB
	emb  models.Embedder
	bulk models.Embedder
	clf  *classifier.Classifier
	now  func() time.Time
	opts Options
	// syncMu runs this memory's registry syncs one at a time (the store's
	// write transaction keeps apart those of two memories over one store,
	// as those of two processes); the memories WithEmbedders makes share
	// it.
	syncMu *sync.Mutex
}

// New returns a Service over db, classifying with emb. It does no I/O; a bad
// classifier option makes every call that classifies return its EINVALID
// error (see classifier.New).
func New(db *store.DB, emb models.Embedder, opts Options) *Service {
	s := &Service{db: db, emb: emb, bulk: opts.Bulk, now: opts.Now, opts: opts, syncMu: &sync.Mutex{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.bulk == nil {
		s.bulk = emb
	}
	s.clf = classifier.New(corpus{db}, emb, opts.Classifier)
	return s
}

// WithEmbedders returns the use cases over the same store with the same
// options, classifying with classify and embedding registry syncs with bulk
// (classify when nil): what a front end that puts a batching queue or
// admission before the model builds over the memory it was given.
func (s *Service) WithEmbedders(classify, bulk models.Embedder) *Service {
	o := s.opts
	o.Bulk = bulk
	w := New(s.db, classify, o)
	w.syncMu = s.syncMu
	return w
}

// Embedder returns the embedder the service classifies with.
func (s *Service) Embedder() models.Embedder { return s.emb }

// Now is the service's clock (Options.Now, else the time of day), in UTC.
func (s *Service) Now() time.Time { return s.now().UTC() }

// at is t in UTC, or now when t is zero.
func (s *Service) at(t time.Time) time.Time {
	if t.IsZero() {
		t = s.now()
	}
	return t.UTC()
}
