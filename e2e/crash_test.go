package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
)

// Sizes of TestCrashRecovery.
const (
	crashKills       = 20
	crashWriters     = 8
	crashReadyLimit  = 5 * time.Second
	crashMinLoadTime = 20 * time.Millisecond
	crashMaxLoadTime = 700 * time.Millisecond
)

var crashRules = []string{"tool.pnpm-not-npm", "tool.use-ripgrep", "tool.no-sed-for-file-editing"}

// ack is one acknowledged correction: its event, and the request that made
// it, to replay with its idempotency key.
type ack struct {
	EventID int64
	Key     string
	Body    string
}

// TestCrashRecovery starts the real binary, puts it under a write load
// (8 clients recording corrections with idempotency keys), kills it with
// SIGKILL at a seeded random moment, and does it again, 20 times. After
// each kill the database file, opened read-only, passes PRAGMA
// integrity_check and holds every acknowledged event, each rule's alpha and
// beta equal the prior plus its stored evidence; the restarted binary
// answers /readyz 200 within 5 seconds of its start, and replaying an
// acknowledged request's idempotency key gives the first answer (200,
// Idempotent-Replayed) instead of new evidence.
func TestCrashRecovery(t *testing.T) {
	bin := MustBuildBinary(t)
	dbPath := filepath.Join(t.TempDir(), "crash.db")
	seed := uint64(20260301)
	if s := testenv.Knob(testenv.CrashSeedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("LEXSONA_CRASH_SEED=%q: %v", s, err)
		}
		seed = n
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("kill moments seeded with LEXSONA_CRASH_SEED=%d", seed)

	var acked []ack
	var worstReady time.Duration
	for round := 0; round <= crashKills; round++ {
		p := MustStartServe(t, bin, dbPath)
		ready, err := p.WaitReady(crashReadyLimit)
		if err != nil {
			t.Fatalf("restart %d: %v\n%s", round, err, p.Log())
		}
		worstReady = max(worstReady, ready)
		c := NewClient(p.Base, crashWriters)
		if len(acked) > 0 {
			mustReplay(t, c, acked, rng)
		}
		if round == crashKills {
			p.Stop(t)
			break
		}
		load := crashMinLoadTime + time.Duration(rng.Int64N(int64(crashMaxLoadTime-crashMinLoadTime)))
		acked = append(acked, writeUntilKilled(c, p, round, load)...)
		mustSurvived(t, dbPath, acked)
		t.Logf("start %2d ready in %3d ms; killed after %3d ms of load; %5d corrections acknowledged so far, all on disk",
			round+1, ready.Milliseconds(), load.Milliseconds(), len(acked))
	}
	if len(acked) == 0 {
		t.Fatal("no correction was acknowledged in any round: the load never reached the server")
	}
	mustSurvived(t, dbPath, acked) // and after the last, clean, stop
	t.Logf("%d SIGKILLs, %d acknowledged corrections all durable; worst start-to-ready %s (limit %s)",
		crashKills, len(acked), worstReady.Round(time.Millisecond), crashReadyLimit)
}

// writeUntilKilled runs crashWriters clients recording corrections until
// load has passed, then SIGKILLs p while they are still sending, and returns
// the corrections answered 201.
func writeUntilKilled(c *Client, p *Proc, round int, load time.Duration) []ack {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var out []ack
	var wg sync.WaitGroup
	for w := range crashWriters {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				key := fmt.Sprintf("crash-%d-%d-%d", round, w, i)
				body := fmt.Sprintf(`{"text":"round %d writer %d correction %d","rule_id":%q,"polarity":%d}`,
					round, w, i, crashRules[(w+i)%len(crashRules)], 1-2*(i%4/3))
				r, err := c.Do(http.MethodPost, "/v1/corrections", "application/json", []byte(body), map[string]string{"Idempotency-Key": key})
				if err != nil || r.Status != http.StatusCreated {
					continue // killed mid-request: not acknowledged
				}
				var res struct {
					EventID int64 `json:"event_id"`
				}
				if json.Unmarshal(r.Body, &res) == nil && res.EventID > 0 {
					mu.Lock()
					out = append(out, ack{res.EventID, key, body})
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(load)
	p.Kill()
	cancel()
	wg.Wait()
	c.HC.CloseIdleConnections()
	return out
}

// mustSurvived opens the killed server's database read-only and checks its
// integrity, that every acknowledged event is there, and that each load
// rule's evidence is the prior plus its stored events.
func mustSurvived(t *testing.T, path string, acked []ack) {
	t.Helper()
	db := MustOpenReadOnly(t, path)
	defer db.Close()
	MustIntegrityOK(t, db)
	stored := map[int64]bool{}
	rows, err := db.Query("SELECT event_id FROM persona_events")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		stored[id] = true
	}
	rows.Close()
	for _, a := range acked {
		if !stored[a.EventID] {
			t.Fatalf("acknowledged event %d (%s) is missing after SIGKILL", a.EventID, a.Key)
		}
	}
	for _, id := range crashRules {
		var alpha, beta float64
		var reinf, counter int
		err := db.QueryRow(`SELECT r.alpha, r.beta,
			(SELECT count(*) FROM persona_events e WHERE e.rule_id = r.rule_id AND e.polarity = 1),
			(SELECT count(*) FROM persona_events e WHERE e.rule_id = r.rule_id AND e.polarity = -1)
			FROM persona_rules r WHERE r.rule_id = ?`, id).Scan(&alpha, &beta, &reinf, &counter)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if alpha != 2+float64(reinf) || beta != 5+float64(counter) {
			t.Fatalf("%s: alpha %g beta %g, but %d reinforcement and %d counterexample events are stored", id, alpha, beta, reinf, counter)
		}
	}
}

// mustReplay resends three acknowledged requests of earlier rounds with
// their idempotency keys: each must answer 200 with the first event id.
func mustReplay(t *testing.T, c *Client, acked []ack, rng *rand.Rand) {
	t.Helper()
	for range 3 {
		a := acked[rng.IntN(len(acked))]
		r, err := c.Do(http.MethodPost, "/v1/corrections", "application/json", []byte(a.Body), map[string]string{"Idempotency-Key": a.Key})
		if err != nil {
			t.Fatalf("replaying %s: %v", a.Key, err)
		}
		var res struct {
			EventID int64 `json:"event_id"`
		}
		json.Unmarshal(r.Body, &res)
		if r.Status != http.StatusOK || r.Header.Get("Idempotent-Replayed") != "true" || res.EventID != a.EventID {
			t.Fatalf("replaying %s after a restart: status %d, event %d, want 200 replaying event %d; body %s",
				a.Key, r.Status, res.EventID, a.EventID, clipBody(r.Body))
		}
	}
}
