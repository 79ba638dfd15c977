package mcp

import (
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/internal/testenv"
)

// clockAt is a settable Config.Now.
type clockAt struct{ t atomic.Int64 }

func newClock(t time.Time) *clockAt    { c := &clockAt{}; c.t.Store(t.UnixNano()); return c }
func (c *clockAt) now() time.Time      { return time.Unix(0, c.t.Load()).UTC() }
func (c *clockAt) add(d time.Duration) { c.t.Add(int64(d)) }

// An MCP session prunes idempotency keys (the record tool takes them), as
// the HTTP server does.
func TestServeMCPPrunesIdempotencyKeys(t *testing.T) {
	clock := newClock(time.Now())
	seed := newTestEnv(t, nil)
	mem, err := seed.srv.mems.Get(t.Context(), tenant.Default)
	if err != nil {
		t.Fatal(err)
	}
	// The store stamps keys with the wall clock; the pruner compares them
	// with the session's clock, which the test moves.
	if _, _, err := mem.Record(t.Context(), engine.Correction{UserText: textAuto, IdempotencyKey: "k-mcp"}); err != nil {
		t.Fatal(err)
	}
	clock.add(tenant.DefaultIdempotencyTTL + time.Hour)

	var log testenv.SyncBuffer
	in, closeIn := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(t.Context(), Config{Memory: memoryOver(seed.db), Embedder: seed.emb, Now: clock.now,
			Logger: slog.New(slog.NewTextHandler(&log, nil))}, in, io.Discard)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "pruned idempotency keys") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	closeIn.Close() // the client hangs up
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if !strings.Contains(log.String(), `msg="pruned idempotency keys" deleted=1`) {
		t.Errorf("the MCP session did not prune the expired key; log:\n%s", log.String())
	}
}
