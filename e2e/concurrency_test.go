package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lexsona/lexsona/registry"
)

// Sizes of TestConcurrentCorrections.
const (
	concClients  = 64
	concRequests = 500 // per client
	concRules    = 10
)

// TestConcurrentCorrections sends 64 × 500 corrections with an explicit
// rule id over 10 rules, reinforcements and counterexamples mixed, from 64
// concurrent HTTP clients on loopback, and checks that no request failed
// (no 5xx, no database-busy error: every answer is 201) and that each rule's
// alpha and beta are the prior (2, 5) plus exactly the acknowledged
// reinforcements and counterexamples — no update lost, none counted twice.
func TestConcurrentCorrections(t *testing.T) {
	srv := MustStartInProc(t, nil)
	c := NewClient(srv.Base, concClients)
	var rules []string
	for _, d := range registry.Default().Definitions()[:concRules] {
		rules = append(rules, d.Rule.RuleID)
	}
	for _, id := range rules {
		if r := c.MustRule(t, id); r.Alpha != 2 || r.Beta != 5 {
			t.Fatalf("%s starts at alpha %g beta %g, want the prior 2, 5", id, r.Alpha, r.Beta)
		}
	}

	// acked[rule][0] counts reinforcements, [1] counterexamples answered 201.
	var acked [concRules][2]atomic.Int64
	var failures atomic.Int64
	var firstFailure sync.Once
	failure := ""
	events := make([][]int64, concClients)
	start := time.Now()
	var wg sync.WaitGroup
	for cl := range concClients {
		wg.Go(func() {
			for i := range concRequests {
				k, counter, fields := loadCorrection(rules, cl, i, concRequests)
				body := fmt.Sprintf(`{%s,"scope":{"project":"p%d"}}`, fields, cl%4)
				r, err := c.Do(http.MethodPost, "/v1/corrections", "application/json", []byte(body), nil)
				var out struct {
					EventID int64  `json:"event_id"`
					RuleID  string `json:"rule_id"`
				}
				if err == nil && r.Status == http.StatusCreated {
					err = json.Unmarshal(r.Body, &out)
				}
				if err != nil || r.Status != http.StatusCreated || out.EventID <= 0 || out.RuleID != rules[k] {
					failures.Add(1)
					firstFailure.Do(func() {
						failure = fmt.Sprintf("client %d request %d: err %v status %d body %s", cl, i, err, r.Status, clipBody(r.Body))
					})
					continue
				}
				j := 0
				if counter {
					j = 1
				}
				acked[k][j].Add(1)
				events[cl] = append(events[cl], out.EventID)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	total := concClients * concRequests
	t.Logf("%d corrections from %d clients in %s: %.0f req/s (GOMAXPROCS %d)",
		total, concClients, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), runtime.GOMAXPROCS(0))
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d of %d requests were not answered 201 Created; first: %s", n, total, failure)
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
	var sum int64
	for k, id := range rules {
		reinf, counter := acked[k][0].Load(), acked[k][1].Load()
		sum += reinf + counter
		r := c.MustRule(t, id)
		if r.Alpha != 2+float64(reinf) || r.Beta != 5+float64(counter) {
			t.Errorf("%s: alpha %g beta %g, want 2+%d and 5+%d (the acknowledged reinforcements and counterexamples)",
				id, r.Alpha, r.Beta, reinf, counter)
		}
		if r.Reinforcements != int(reinf) || r.CounterExamples != int(counter) {
			t.Errorf("%s: %d reinforcements, %d counterexamples; want %d, %d", id, r.Reinforcements, r.CounterExamples, reinf, counter)
		}
	}
	if sum != int64(total) || len(seen) != total {
		t.Errorf("%d acknowledged over the rules, %d distinct event ids; want %d", sum, len(seen), total)
	}
	mustEventsInDB(t, srv.Path, seen)
}

// mustEventsInDB checks that every event id of want is a row of
// persona_events in the database file at path.
func mustEventsInDB(t *testing.T, path string, want map[int64]bool) {
	t.Helper()
	mustEventRows(t, MustOpenReadOnly(t, path), want)
}

// mustEventRows checks that every event id of want is a row of
// persona_events in db.
func mustEventRows(t *testing.T, db *sql.DB, want map[int64]bool) {
	t.Helper()
	rows, err := db.Query("SELECT event_id FROM persona_events")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	found := 0
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		if want[id] {
			found++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if found != len(want) {
		t.Errorf("%d of %d acknowledged events are in persona_events", found, len(want))
	}
}

// loadCorrection is request i of client cl in a load of perClient requests
// each over rules: the rule's index k, whether it is a counterexample (every
// third), and the correction's JSON fields (text, rule_id, polarity).
func loadCorrection(rules []string, cl, i, perClient int) (k int, counter bool, fields string) {
	k = (cl*perClient + i) % len(rules)
	counter = (cl+i)%3 == 0
	pol := 1
	if counter {
		pol = -1
	}
	return k, counter, fmt.Sprintf(`"text":"client %d says correction %d","rule_id":%q,"polarity":%d`, cl, i, rules[k], pol)
}
