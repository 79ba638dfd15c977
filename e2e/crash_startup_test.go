package e2e

import (
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lexsona/lexsona/registry"
)

// TestCrashDuringStartup kills the binary with SIGKILL at seeded random
// moments of its very first start on a new database — while it creates the
// file, migrates it and syncs and embeds the default registry — five times,
// then starts it normally: it is ready within 5 seconds, the file passes
// PRAGMA integrity_check, and the registry is whole (every rule, every text
// embedded), as if the interrupted starts had never happened.
func TestCrashDuringStartup(t *testing.T) {
	bin := MustBuildBinary(t)
	dbPath := filepath.Join(t.TempDir(), "startup.db")
	rng := rand.New(rand.NewPCG(20260301, 11))
	for i := range 5 {
		cmd := exec.Command(bin, "serve", "--db", dbPath, "--addr", "127.0.0.1:0", "--embedder", "lexical")
		cmd.Env = cleanEnv()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		at := time.Duration(rng.Int64N(int64(150 * time.Millisecond)))
		time.Sleep(at)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Logf("start %d killed %d ms after it began", i+1, at.Milliseconds())
	}
	p := MustStartServe(t, bin, dbPath)
	ready, err := p.WaitReady(crashReadyLimit)
	if err != nil {
		t.Fatalf("after the interrupted starts: %v\n%s", err, p.Log())
	}
	db := MustOpenReadOnly(t, dbPath)
	MustIntegrityOK(t, db)
	var rules, texts, embedded int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM persona_rules WHERE source = 'registry' AND status <> 'archived'),
		(SELECT count(*) FROM rule_texts), (SELECT count(DISTINCT rule_id || text_sha256) FROM persona_embeddings)`).
		Scan(&rules, &texts, &embedded); err != nil {
		t.Fatal(err)
	}
	if want := registry.Default().Len(); rules != want || texts == 0 || embedded != texts {
		t.Errorf("after the interrupted starts: %d registry rules (want %d), %d texts, %d embedded (want all)", rules, want, texts, embedded)
	}
	t.Logf("ready %d ms after the start that followed 5 interrupted ones", ready.Milliseconds())
	p.Stop(t)
}
