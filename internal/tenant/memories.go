package tenant

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
)

// Embedders are what a memory embeds with: Classify for its requests
// (corrections, classify, captured prompts), Bulk for its registry syncs.
type Embedders struct {
	Classify models.Embedder
	Bulk     models.Embedder
}

// MemoryFunc builds a memory over the embedders its front end gives it:
// the HTTP server's admission over its batching queue, or the model itself
// for MCP. MemoryOver is the one over a store.
type MemoryFunc func(Embedders) *memory.Service

// Opener opens the memories of named tenants (MemoryOpener, over Stores,
// is LexSona's).
type Opener interface {
	// OpenMemory opens named tenant name's memory over emb: its store,
	// created when missing. The memory's Close closes the store.
	OpenMemory(ctx context.Context, name string, emb Embedders) (*memory.Service, error)
}

// DefaultOpenTimeout bounds the opening of a named tenant's memory
// (MemoriesConfig.OpenTimeout): its store, and the registries synced into it.
const DefaultOpenTimeout = 10 * time.Minute

// MemoriesConfig configures Memories. Default is required.
type MemoriesConfig struct {
	// Default is the default tenant's memory; Memories never closes it.
	Default *memory.Service
	// Tenants opens the named tenants' memories; without it a named
	// tenant's memory is EUNAVAILABLE.
	Tenants Opener
	// Model is the embedder the front end was given. When it is fitted to
	// one store's registries (a models.Fitter: the lexical embedder), every
	// named tenant needs one of its own, which TenantEmbedder opens;
	// otherwise named tenants embed with Shared.
	Model          models.Embedder
	Shared         Embedders
	TenantEmbedder func(ctx context.Context) (models.Embedder, error)
	// Own is what a tenant's own embedder becomes for its memory (nil: the
	// embedder itself, for both).
	Own func(models.Embedder) Embedders
	// Shares are the registries tenants receive read-only from another.
	Shares []Share
	// OpenTimeout bounds opening a named tenant's memory
	// (DefaultOpenTimeout).
	OpenTimeout time.Duration
	// Logger gets what opening, sharing and pruning met (slog.Default()).
	Logger *slog.Logger
	// Now is the pruner's clock (time.Now).
	Now func() time.Time
}

// Memories are every tenant's memory: the default tenant's, given, and
// each named tenant's, opened at its first use and kept until Close. The
// HTTP server and the MCP server look tenants up by name through it. It is
// safe for concurrent use.
type Memories struct {
	cfg MemoriesConfig
	log *slog.Logger
	def *named // the default tenant's

	mu      sync.Mutex
	open    map[string]*named
	opening map[string]*sync.Mutex // one opener per tenant at a time
	closed  bool
}

// named is one named tenant's memory and, for an embedder fitted per
// store, its own embedder (closed with it).
type named struct {
	name string
	mem  *memory.Service
	own  models.Embedder
}

// Opened is a tenant whose memory is open.
type Opened struct {
	Name   string
	Memory *memory.Service
}

// NewMemories returns the memories cfg describes; it opens nothing.
func NewMemories(cfg MemoriesConfig) *Memories {
	if cfg.OpenTimeout <= 0 {
		cfg.OpenTimeout = DefaultOpenTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Own == nil {
		cfg.Own = func(e models.Embedder) Embedders { return Embedders{Classify: e, Bulk: e} }
	}
	return &Memories{cfg: cfg, log: cfg.Logger, def: &named{name: Default, mem: cfg.Default},
		open: map[string]*named{}, opening: map[string]*sync.Mutex{}}
}

// Default returns the default tenant's memory.
func (m *Memories) Default() *memory.Service { return m.cfg.Default }

// Get returns tenant name's memory ("" or Default: the default tenant's),
// opening a named tenant's on first use: its store (MemoriesConfig.Tenants),
// the registries in force synced into it (memory.Service.SyncInForce: the
// default pack into a new store), then the registries other tenants share
// with it. Errors: EUNAVAILABLE when named tenants are not configured or
// Close was called, or when the opening failed for a reason other than a
// bug (logged; the next call tries again); EINTERNAL for a bug.
func (m *Memories) Get(ctx context.Context, name string) (*memory.Service, error) {
	t, err := m.get(ctx, name)
	if err != nil {
		return nil, err
	}
	return t.mem, nil
}

func (m *Memories) get(ctx context.Context, name string) (*named, error) {
	if name == "" || name == Default {
		return m.def, nil
	}
	m.mu.Lock()
	if t := m.open[name]; t != nil {
		m.mu.Unlock()
		return t, nil
	}
	if m.closed {
		m.mu.Unlock()
		return nil, engine.Errorf(engine.EUNAVAILABLE, "shutting down")
	}
	lock := m.opening[name]
	if lock == nil {
		lock = &sync.Mutex{}
		m.opening[name] = lock
	}
	m.mu.Unlock()

	lock.Lock()
	defer lock.Unlock()
	m.mu.Lock()
	t := m.open[name]
	m.mu.Unlock()
	if t != nil {
		return t, nil
	}
	// The opening outlives an impatient caller: the next one would redo it.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.cfg.OpenTimeout)
	defer cancel()
	t, err := m.openNamed(octx, name)
	if err != nil {
		m.log.Error("opening a tenant's memory failed", "tenant", name, "err", err.Error())
		if engine.ErrorCode(err) == engine.EINTERNAL {
			return nil, err
		}
		return nil, engine.Errorf(engine.EUNAVAILABLE, "this tenant's memory cannot be opened now: retry later")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		t.close()
		return nil, engine.Errorf(engine.EUNAVAILABLE, "shutting down")
	}
	m.open[name] = t
	return t, nil
}

// openNamed opens and readies tenant name's memory (see Get).
func (m *Memories) openNamed(ctx context.Context, name string) (*named, error) {
	if m.cfg.Tenants == nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: this server has no tenant stores configured", name)
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	t := &named{name: name}
	emb := m.cfg.Shared
	if _, fits := models.As[models.Fitter](m.cfg.Model); fits {
		// A corpus-dependent embedder is fitted on one store's registries:
		// each tenant needs its own.
		if m.cfg.TenantEmbedder == nil {
			return nil, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: the %s embedder follows each store's registries and no Config.TenantEmbedder opens one per tenant", name, m.cfg.Model.Backend())
		}
		own, err := m.cfg.TenantEmbedder(ctx)
		if err != nil {
			return nil, err
		}
		t.own, emb = own, m.cfg.Own(own)
	}
	mem, err := m.cfg.Tenants.OpenMemory(ctx, name, emb)
	if err != nil {
		t.close()
		return nil, err
	}
	t.mem = mem
	if _, _, err := mem.SyncInForce(ctx, memory.SyncOptions{}); err != nil {
		t.close()
		return nil, err
	}
	if err := m.receiveShared(ctx, name, mem); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

// close closes what the tenant's memory opened: its store and its own
// embedder.
func (t *named) close() error {
	var errs []error
	if t.mem != nil {
		errs = append(errs, t.mem.Close())
	}
	if t.own != nil {
		errs = append(errs, t.own.Close())
	}
	return errors.Join(errs...)
}

// Opened returns the default tenant and the named tenants opened so far.
func (m *Memories) Opened() []Opened {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Opened{{Name: Default, Memory: m.cfg.Default}}
	for _, t := range m.open {
		out = append(out, Opened{Name: t.name, Memory: t.mem})
	}
	return out
}

// Close closes every named tenant's memory (not the default one, which is
// the caller's); later calls of Get for a named tenant are EUNAVAILABLE.
// Errors: those of closing the stores and embedders (each also logged).
func (m *Memories) Close() error {
	m.mu.Lock()
	m.closed = true
	open := m.open
	m.open = map[string]*named{}
	m.mu.Unlock()
	var errs []error
	for _, t := range open {
		if err := t.close(); err != nil {
			m.log.Error("closing a tenant's store", "tenant", t.name, "err", err.Error())
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
