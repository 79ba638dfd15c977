package server

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/server/servertest"
)

// The fakes the front end is tested against alone (servertest.Memory for
// a tenant's use cases), and the proof that LexSona's own satisfy what the
// server declares.
var (
	_ Memory  = (*servertest.Memory)(nil)
	_ Tenants = (*fakeTenants)(nil)
	_ Tenants = tenantMemories{}
)

// fakeTenants are Tenants over fake memories: the default tenant's and
// the named ones it lists (any other is EUNAVAILABLE, as a tenant whose
// store cannot be opened). It records what the server asked of it.
type fakeTenants struct {
	def      *servertest.Memory
	named    map[string]*servertest.Memory
	received map[string]bool // "tenant/registry" received read-only
	synced   []string        // "owner/registry" passed on, in order
}

func (f *fakeTenants) Get(_ context.Context, name string) (Memory, error) {
	if name == "" || name == tenant.Default {
		return f.def, nil
	}
	if m := f.named[name]; m != nil {
		return m, nil
	}
	return nil, engine.Errorf(engine.EUNAVAILABLE, "this tenant's memory cannot be opened now: retry later")
}

func (f *fakeTenants) Receives(name, regName string) bool { return f.received[name+"/"+regName] }

func (f *fakeTenants) ShareSynced(_ context.Context, owner, regName string) {
	f.synced = append(f.synced, owner+"/"+regName)
}

func (f *fakeTenants) StartPruner(time.Duration) func()  { return func() {} }
func (f *fakeTenants) FollowShares(time.Duration) func() { return func() {} }
func (f *fakeTenants) Close() error                      { return nil }

// noOpener is the Config.Tenants of a server over fakeTenants, which never
// asks it to open a memory.
type noOpener struct{}

func (noOpener) OpenMemory(context.Context, string, tenant.Embedders) (*memory.Service, error) {
	return nil, engine.Errorf(engine.EINTERNAL, "noOpener: the fake tenants open their memories")
}

// newFakeEnv builds a server over fake memories: mem is the default
// tenant's, named the named tenants' (edit adjusts the config before the
// server is built). The server embeds with an unfitted lexical embedder
// unless edit gives it another; a fake without a Model embeds with the
// server's admission over its batching queue, as a memory New builds does.
// Its handler is the real one: routing, middleware, decoding and error
// mapping; only the use cases are fakes.
func newFakeEnv(tb testing.TB, edit func(*Config), mem *servertest.Memory, named map[string]*servertest.Memory) (*testEnv, *fakeTenants) {
	tb.Helper()
	srv, ft := newFakeServer(tb, edit, mem, named)
	return &testEnv{t: tb, srv: srv, emb: srv.cfg.Embedder, h: srv.Handler()}, ft
}

// newFakeServer is newFakeEnv's server.
func newFakeServer(tb testing.TB, edit func(*Config), mem *servertest.Memory, named map[string]*servertest.Memory) (*Server, *fakeTenants) {
	tb.Helper()
	cfg := Config{Embedder: lexical.New(0), Logger: discardLogger(), Now: func() time.Time { return testNow }}
	if edit != nil {
		edit(&cfg)
	}
	if cfg.Tenants == nil {
		cfg.Tenants = noOpener{} // the fake Tenants open the named ones
	}
	srv, err := newServer(cfg)
	if err != nil {
		tb.Fatalf("newServer: %v", err)
	}
	for _, m := range append([]*servertest.Memory{mem}, slices.Collect(maps.Values(named))...) {
		if m.Model == nil {
			m.Model = srv.emb
		}
	}
	ft := &fakeTenants{def: mem, named: named, received: map[string]bool{}}
	srv.serve(mem, ft)
	tb.Cleanup(func() { srv.Close() })
	return srv, ft
}
