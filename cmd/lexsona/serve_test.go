package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store"
)

// MustBuildBinary builds cmd/lexsona once per test binary (see testenv).
func MustBuildBinary(tb testing.TB) string { return testenv.MustBuildBinary(tb) }

var listeningRE = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startServer starts `lexsona serve` on a free loopback port and returns the
// process and its base URL once it logs that it is listening.
func startServer(tb testing.TB, bin, db string) (*exec.Cmd, string) {
	tb.Helper()
	cmd := exec.Command(bin, "serve", "--db", db, "--addr", "127.0.0.1:0", "--embedder", "lexical")
	cmd.Env = append(os.Environ(), "LEXSONA_REGISTRY=", "LEXSONA_API_KEYS=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, "http://" + a
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		tb.Fatal("the server did not report listening within 30 s")
	}
	return nil, ""
}

// TestServeDrainsOnSIGTERM starts the real binary, sends corrections from
// several clients, sends SIGTERM while they are in flight, and checks that the
// process exits 0 and that every acknowledged correction is in the database.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := MustBuildBinary(t)
	db := filepath.Join(t.TempDir(), "serve.db")
	cmd, base := startServer(t, bin, db)

	var mu sync.Mutex
	acked := map[int64]bool{}
	// SIGTERM goes out once this many corrections are acknowledged, while
	// the clients keep sending.
	const before = 20
	enough := make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < 400 && ctx.Err() == nil; i++ {
				body := fmt.Sprintf(`{"text":"use pnpm instead of npm, take %d-%d","rule_id":"tool.pnpm-not-npm"}`, c, i)
				req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/corrections", bytes.NewBufferString(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return // the server has stopped accepting
				}
				var out struct {
					EventID int64 `json:"event_id"`
				}
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode == http.StatusCreated && out.EventID > 0 {
					mu.Lock()
					acked[out.EventID] = true
					if len(acked) == before {
						close(enough)
					}
					mu.Unlock()
				}
			}
		}(c)
	}
	select {
	case <-enough:
	case <-ctx.Done():
		cmd.Process.Kill()
		t.Fatalf("fewer than %d corrections acknowledged within 20 s", before)
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	took := time.Since(start)
	wg.Wait()
	if err != nil {
		t.Fatalf("lexsona serve exited with %v after SIGTERM", err)
	}
	if took > 10*time.Second {
		t.Errorf("shutdown took %s, want under 10 s", took)
	}
	if len(acked) < before {
		t.Fatalf("%d corrections acknowledged, want at least %d", len(acked), before)
	}
	s, err := store.OpenWith(context.Background(), db, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	found := map[int64]bool{}
	for after := int64(0); ; {
		page, err := s.History(context.Background(), "tool.pnpm-not-npm", after, 10000)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			found[e.EventID] = true
		}
		if len(page) < 10000 {
			break
		}
		after = page[len(page)-1].EventID
	}
	for id := range acked {
		if !found[id] {
			t.Errorf("acknowledged event %d is missing after shutdown", id)
		}
	}
	t.Logf("%d corrections acknowledged before SIGTERM, all durable; shutdown took %s", len(acked), took)
}

// TestMain removes the binary built for the run.
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Cleanup()
	os.Exit(code)
}
