package server

import (
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// clockAt is a settable Config.Now.
type clockAt struct{ t atomic.Int64 }

func newClock(t time.Time) *clockAt    { c := &clockAt{}; c.t.Store(t.UnixNano()); return c }
func (c *clockAt) now() time.Time      { return time.Unix(0, c.t.Load()).UTC() }
func (c *clockAt) add(d time.Duration) { c.t.Add(int64(d)) }

// The store stamps keys with the wall clock; the pruner compares them with
// the server's clock, which the test moves.
func TestPruneOnceDeletesOnlyExpiredKeys(t *testing.T) {
	clock := newClock(time.Now())
	var log testenv.SyncBuffer
	e := newTestEnv(t, func(c *Config) {
		c.Now = clock.now
		c.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	body := `{"text":"` + textAuto + `","scope":{"project":"api"}}`
	mustStatus(t, e.do(withKey("k-ttl", body)), http.StatusCreated)

	clock.add(23 * time.Hour)
	e.srv.mems.(tenantMemories).PruneOnce(t.Context(), DefaultIdempotencyTTL)
	if r := e.do(withKey("k-ttl", body)); r.status != http.StatusOK {
		t.Fatalf("within the TTL a retry answered %d, want 200 (replayed)", r.status)
	}
	if strings.Contains(log.String(), "pruned idempotency keys") {
		t.Errorf("a pass that deleted nothing logged:\n%s", log.String())
	}

	clock.add(2 * time.Hour) // 25 h after the key was stored
	e.srv.mems.(tenantMemories).PruneOnce(t.Context(), DefaultIdempotencyTTL)
	if !strings.Contains(log.String(), "msg=\"pruned idempotency keys\" deleted=1 older_than=24h0m0s") {
		t.Errorf("no log line for the pruned key:\n%s", log.String())
	}
	if r := e.do(withKey("k-ttl", body)); r.status != http.StatusCreated {
		t.Fatalf("after the TTL a retry answered %d, want 201 (recorded anew)", r.status)
	}
	if n, _ := e.evidence(ruleSed); n != 2 {
		t.Errorf("%d reinforcements, want 2 (the first and the one after the key expired)", n)
	}
}

// Run starts the pruner (its first pass at once) and stops it before the
// store closes; a negative TTL keeps every key.
func TestRunPrunesIdempotencyKeys(t *testing.T) {
	for _, c := range []struct {
		name    string
		ttl     time.Duration
		want    int // status of the retry through the running server
		wantLog bool
	}{
		{"default TTL", 0, http.StatusCreated, true},
		{"never", -1, http.StatusOK, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := newClock(time.Now())
			seed := newTestEnv(t, func(cfg *Config) { cfg.Now = clock.now })
			body := `{"text":"` + textAuto + `","scope":{"project":"api"}}`
			mustStatus(t, seed.do(withKey("k-run", body)), http.StatusCreated)

			clock.add(DefaultIdempotencyTTL + time.Hour)
			var log testenv.SyncBuffer
			_, base, _, stop := startServer(t, func(cfg *Config) {
				cfg.Embedder, cfg.Now, cfg.IdempotencyTTL = seed.emb, clock.now, c.ttl
				cfg.Memory = memoryOver(seed.db, testBands(t), &cfg.Now)
				cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
			})
			deadline := time.Now().Add(5 * time.Second)
			for c.wantLog && !strings.Contains(log.String(), "pruned idempotency keys") && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			req, _ := http.NewRequest(http.MethodPost, base+"/v1/corrections", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(IdempotencyHeader, "k-run")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Errorf("retry through the running server: %d, want %d; log:\n%s", resp.StatusCode, c.want, log.String())
			}
			if _, err := stop(); err != nil {
				t.Errorf("Run: %v", err)
			}
			if got := strings.Contains(log.String(), "pruned idempotency keys"); got != c.wantLog {
				t.Errorf("pruned log line present = %v, want %v:\n%s", got, c.wantLog, log.String())
			}
		})
	}
}
