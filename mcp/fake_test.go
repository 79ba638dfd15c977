package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/server/servertest"
)

// The fakes the tools are tested against alone (servertest.Memory for a
// tenant's use cases), and the proof that LexSona's own satisfy what the
// tools declare.
var (
	_ Memory  = (*servertest.Memory)(nil)
	_ Tenants = (*fakeTenants)(nil)
	_ Tenants = tenantMemories{}
)

// fakeTenants are Tenants over fake memories: the default tenant's and
// the named ones it lists (any other is EUNAVAILABLE, as a tenant whose
// store cannot be opened).
type fakeTenants struct {
	def   *servertest.Memory
	named map[string]*servertest.Memory
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

func (f *fakeTenants) Default() Memory                  { return f.def }
func (f *fakeTenants) StartPruner(time.Duration) func() { return func() {} }
func (f *fakeTenants) Close() error                     { return nil }

// newFakeServer is an MCP server whose tools work on fake memories: mem is
// the default tenant's, named the named tenants'. Its tools, schemas and
// framing are the real ones; only the use cases are fakes.
func newFakeServer(tb testing.TB, cfg Config, mem *servertest.Memory, named map[string]*servertest.Memory) *Server {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = discardLogger()
	}
	s := over(cfg, &fakeTenants{def: mem, named: named})
	tb.Cleanup(func() { s.Close() })
	return s
}
