package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/registry"
)

// Sizes of TestPGInstances (-short: 40 requests per client).
const (
	pgInstances = 3
	pgClients   = 64
	pgRequests  = 500 // per client
	pgRules     = 10
)

// TestPGInstances starts three `lexsona serve` on one PostgreSQL database
// and sends 64 × 500 corrections with idempotency keys over 10 rules, the
// clients spread over the instances; once a third is acknowledged, one
// instance is killed with SIGKILL and its clients go on with the others,
// retrying an unanswered request with its key. No instance that runs answers
// 5xx; every correction is acknowledged exactly once (a retry of one the
// killed instance committed replays its answer); each rule's alpha and beta
// are the prior plus the acknowledged corrections, and every acknowledged
// event is in the database.
func TestPGInstances(t *testing.T) {
	dsn := testenv.PGSchemaURL(t)
	bin := MustBuildBinary(t)
	requests := pgRequests
	if testing.Short() {
		requests = 40
	}
	logs := t.TempDir()
	procs := make([]*Proc, pgInstances)
	clients := make([]*Client, pgInstances)
	for i := range procs {
		p, err := startServe(bin, dsn, serveOpts{LogDir: logs})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Kill)
		if _, err := p.WaitReady(60 * time.Second); err != nil {
			t.Fatalf("instance %d: %v\n%s", i, err, p.Log())
		}
		procs[i], clients[i] = p, NewClient(p.Base, pgClients)
	}
	var rules []string
	for _, d := range registry.Default().Definitions()[:pgRules] {
		rules = append(rules, d.Rule.RuleID)
	}
	for _, id := range rules {
		if r := clients[0].MustRule(t, id); r.Alpha != 2 || r.Beta != 5 {
			t.Fatalf("%s starts at alpha %g beta %g, want the prior 2, 5", id, r.Alpha, r.Beta)
		}
	}

	const victim = pgInstances - 1
	var killed atomic.Bool
	var acked [pgRules][2]atomic.Int64
	var total, retried, fiveXX atomic.Int64
	var firstFailure sync.Once
	failure := ""
	fail := func(format string, args ...any) {
		fiveXX.Add(1)
		firstFailure.Do(func() { failure = fmt.Sprintf(format, args...) })
	}
	events := make([][]int64, pgClients)
	killOnce := sync.Once{}
	start := time.Now()
	var wg sync.WaitGroup
	for cl := range pgClients {
		wg.Go(func() {
			for i := range requests {
				k, counter, fields := loadCorrection(rules, cl, i, requests)
				key := fmt.Sprintf("pg-%d-%d", cl, i)
				body := "{" + fields + "}"
				inst := cl % pgInstances
				for try := 0; ; try++ {
					if inst == victim && killed.Load() {
						inst = cl % (pgInstances - 1)
					}
					r, err := clients[inst].Do(http.MethodPost, "/v1/corrections", "application/json", []byte(body),
						map[string]string{"Idempotency-Key": key})
					if err != nil || (inst == victim && r.Status >= 500) {
						if inst != victim || try > 50 {
							fail("client %d request %d on instance %d: %v (status %d)", cl, i, inst, err, r.Status)
							break
						}
						retried.Add(1)
						time.Sleep(10 * time.Millisecond)
						continue
					}
					var out struct {
						EventID int64  `json:"event_id"`
						RuleID  string `json:"rule_id"`
					}
					ok := r.Status == http.StatusCreated || (r.Status == http.StatusOK && r.Header.Get("Idempotent-Replayed") == "true")
					if ok {
						ok = json.Unmarshal(r.Body, &out) == nil && out.EventID > 0 && out.RuleID == rules[k]
					}
					if !ok {
						fail("client %d request %d on instance %d: status %d body %s", cl, i, inst, r.Status, clipBody(r.Body))
						break
					}
					j := 0
					if counter {
						j = 1
					}
					acked[k][j].Add(1)
					events[cl] = append(events[cl], out.EventID)
					if total.Add(1) >= int64(pgClients*requests/3) {
						killOnce.Do(func() {
							procs[victim].Kill()
							killed.Store(true)
						})
					}
					break
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	n := pgClients * requests
	t.Logf("%d corrections from %d clients over %d instances in %s: %.0f req/s; instance %d killed after a third, %d requests retried elsewhere",
		n, pgClients, pgInstances, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), victim, retried.Load())
	if f := fiveXX.Load(); f > 0 {
		t.Fatalf("%d requests failed; first: %s", f, failure)
	}
	if !killed.Load() {
		t.Fatal("the instance was never killed")
	}

	seen := map[int64]bool{}
	for _, evs := range events {
		for _, id := range evs {
			if seen[id] {
				t.Fatalf("event id %d acknowledged twice", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct events acknowledged, want %d", len(seen), n)
	}
	for k, id := range rules {
		reinf, counter := acked[k][0].Load(), acked[k][1].Load()
		r := clients[0].MustRule(t, id)
		if r.Alpha != 2+float64(reinf) || r.Beta != 5+float64(counter) {
			t.Errorf("%s: alpha %g beta %g, want 2+%d and 5+%d (the acknowledged reinforcements and counterexamples)",
				id, r.Alpha, r.Beta, reinf, counter)
		}
	}
	mustPGEvents(t, dsn, seen)
	for i, p := range procs {
		if i != victim {
			p.Stop(t)
		}
	}
}

// mustPGEvents checks that every event id of want is a row of
// persona_events in the database of dsn.
func mustPGEvents(t *testing.T, dsn string, want map[int64]bool) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustEventRows(t, db, want)
}
