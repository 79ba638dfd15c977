package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// syncRules is the size of the registries TestFaultKillDuringSync switches
// between: large enough that a sync takes a while to kill.
const syncRules = 3000

// syncKillAt are the moments of the kills, as fractions of a whole sync's
// measured duration.
var syncKillAt = []float64{0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95}

// TestFaultKillDuringSync SIGKILLs the server in the middle of POST
// /v1/registry/sync, at moments spread over a sync's duration, switching
// between two registries of 3,000 rules each. After every kill the
// database must hold one registry whole: the rules of the registry recorded
// in force all active, those of the other all absent or archived — never
// the new definitions beside the old registry in force. After a restart no
// embedding of an archived rule is left, and every acknowledged correction
// is stored.
func TestFaultKillDuringSync(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := t.TempDir()
	regs := map[string][]byte{"bulk.a": bulkRegistry("bulk.a", syncRules), "bulk.b": bulkRegistry("bulk.b", syncRules)}

	scratch := mustStartFaultServe(t, bin, filepath.Join(dir, "scratch.db"), dir)
	if _, err := scratch.WaitReady(readyLimit); err != nil {
		t.Fatalf("%v\n%s", err, scratch.Log())
	}
	t0 := time.Now()
	if r := postRegistry(t, NewClient(scratch.Base, 1), regs["bulk.a"]); r.Status != http.StatusOK {
		t.Fatalf("a whole sync: %d %s", r.Status, clipBody(r.Body))
	}
	whole := time.Since(t0)
	scratch.Stop(t)
	t.Logf("a whole sync of %d rules takes %s", syncRules, whole.Round(time.Millisecond))

	db := filepath.Join(dir, "lexsona.db")
	var acked []int64
	for round, frac := range syncKillAt {
		p := mustStartFaultServe(t, bin, db, dir)
		if _, err := p.WaitReady(2 * time.Minute); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, p.Log())
		}
		c := NewClient(p.Base, 1)
		if round == 0 { // a user's rule: no registry archives it
			r := c.MustDo(t, http.MethodPost, "/v1/rules", "application/json",
				[]byte(`{"rule_id":"user.keep-me","category":"tool_preference","text":"Use pnpm, never npm"}`))
			if r.Status != http.StatusCreated {
				t.Fatalf("creating a user rule: %d %s", r.Status, clipBody(r.Body))
			}
		}
		r, id, err := recordTo(c, "user.keep-me", fmt.Sprintf("sync-%d", round), fmt.Sprintf("round %d: use pnpm, not npm", round))
		if err != nil || r.Status != http.StatusCreated {
			t.Fatalf("round %d: a correction: %v %d %s", round, err, r.Status, clipBody(r.Body))
		}
		acked = append(acked, id)
		name := []string{"bulk.a", "bulk.b"}[round%2]
		done := make(chan Response, 1)
		go func() {
			r, _ := c.Do(http.MethodPost, "/v1/registry/sync?name=bulk", "application/yaml", regs[name], nil)
			done <- r
		}()
		time.Sleep(time.Duration(frac * float64(whole)))
		p.Kill()
		r = <-done
		inForce := mustOneRegistry(t, db, regs)
		t.Logf("round %d: killed %s into the sync of %s (answer %d); registry in force: %s",
			round, time.Duration(frac*float64(whole)).Round(time.Millisecond), name, r.Status, inForce)
	}

	p := mustStartFaultServe(t, bin, db, dir)
	if _, err := p.WaitReady(2 * time.Minute); err != nil {
		t.Fatalf("the last start: %v\n%s", err, p.Log())
	}
	p.Stop(t)
	conn := mustOpenDSN(t, "file:"+db+"?mode=ro")
	var orphans int
	if err := conn.QueryRow(`SELECT count(*) FROM persona_embeddings e JOIN persona_rules r ON r.rule_id = e.rule_id
		WHERE r.status = 'archived'`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Fatalf("%d embeddings of archived rules are left after a start", orphans)
	}
	mustHoldEvents(t, db, acked, false)
}

// postRegistry posts yaml to /v1/registry/sync as the source "bulk".
func postRegistry(t *testing.T, c *Client, yaml []byte) Response {
	t.Helper()
	return c.MustDo(t, http.MethodPost, "/v1/registry/sync?name=bulk", "application/yaml", yaml)
}

// mustOneRegistry checks that db holds each registry whole: for each of
// regs, its rules are all active when a registry recorded in force holds
// its YAML, and none active otherwise (both bulk registries are synced
// under the same source name, so at most one of them is in force). It
// returns the name of the bulk registry in force ("default" when neither).
func mustOneRegistry(t *testing.T, db string, regs map[string][]byte) string {
	t.Helper()
	conn := mustOpenDSN(t, "file:"+db+"?mode=ro")
	defer conn.Close()
	rows, err := conn.Query(`SELECT yaml FROM registry_source`)
	if err != nil {
		t.Fatal(err)
	}
	inForce := "default"
	for rows.Next() {
		var yaml []byte
		if err := rows.Scan(&yaml); err != nil {
			t.Fatal(err)
		}
		for name, y := range regs {
			if string(y) == string(yaml) {
				inForce = name
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	for name := range regs {
		var active int
		if err := conn.QueryRow(`SELECT count(*) FROM persona_rules WHERE rule_id LIKE ? AND status <> 'archived'`, name+".%").Scan(&active); err != nil {
			t.Fatal(err)
		}
		want := 0
		if name == inForce {
			want = syncRules
		}
		if active != want {
			t.Fatalf("registry in force %s, but %d rules of %s are active (want %d): a sync was left half done", inForce, active, name, want)
		}
	}
	return inForce
}
