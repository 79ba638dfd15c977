package sqlite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// mustOpenCkpt opens a database in a temporary directory with the
// checkpointer's configuration given, closed at the end of the test.
func mustOpenCkpt(tb testing.TB, log *slog.Logger, cfg ckptConfig) (*store.DB, *Driver) {
	tb.Helper()
	d, err := open(context.Background(), filepath.Join(tb.TempDir(), "lexsona.db"), store.Options{Logger: log, Clock: time.Now}, config{ckpt: cfg, write: defaultWrite})
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	db := store.New(d, store.Options{Clock: time.Now})
	tb.Cleanup(func() { db.Close() })
	return db, d
}

// walSize is the size of db's write-ahead log file (0 when there is none).
func walSize(tb testing.TB, db *store.DB) int64 {
	tb.Helper()
	fi, err := os.Stat(db.Path() + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		tb.Fatal(err)
	}
	return fi.Size()
}

// recordLoad records n corrections on one rule, with a reader taking
// snapshots all along, and returns the largest write-ahead log size seen
// after a commit.
func recordLoad(tb testing.TB, db *store.DB, n int) (maxWAL int64) {
	tb.Helper()
	ctx := context.Background()
	storetest.MustCreate(tb, db, "tool.x", "tool_preference", engine.Scope{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := memory.Snapshot(ctx, db, engine.SnapshotRequest{Now: t0}); err != nil {
				tb.Error(err)
				return
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	for i := range n {
		memorytest.MustRecord(tb, db, engine.Correction{RuleID: "tool.x", UserText: fmt.Sprintf("correction %d %s", i, strings.Repeat("x", 500)),
			At: t0.Add(time.Duration(i) * time.Second)})
		maxWAL = max(maxWAL, walSize(tb, db))
	}
	return maxWAL
}

func TestCheckpointerBoundsTheWAL(t *testing.T) {
	// A log checkpointed from 64 frames on and restarted at 256 (1 MiB),
	// and a writer in a tight loop, which adds megabytes while a checkpoint
	// runs: the bound leaves room for a slow machine, and is far below the
	// unchecked growth.
	const n, bound = 4000, 32 << 20
	cfg := ckptConfig{interval: time.Millisecond, frames: 64, restart: 256}
	// Control: with the checkpointer held off, the same load grows the log
	// to more than twice the bound (so the bound below means something).
	idle, _ := mustOpenCkpt(t, nil, ckptConfig{interval: time.Hour, frames: cfg.frames, restart: cfg.restart})
	if got := recordLoad(t, idle, n); got <= 2*bound {
		t.Fatalf("without checkpoints the log reached only %d bytes: the load is too light to test the bound %d", got, bound)
	} else {
		t.Logf("largest log: %d bytes without checkpoints", got)
	}
	db, d := mustOpenCkpt(t, nil, cfg)
	got := recordLoad(t, db, n)
	t.Logf("largest log: %d bytes with the checkpointer", got)
	if got > bound {
		t.Errorf("with the checkpointer the log reached %d bytes, want at most %d", got, bound)
	}
	d.ckpt.mu.Lock()
	passes := d.ckpt.passes
	d.ckpt.mu.Unlock()
	if passes == 0 {
		t.Error("the checkpointer never ran")
	}
	if c := storetest.MustCount(t, db); c.Events != n+1 {
		t.Errorf("%d events, want %d", c.Events, n+1)
	}
}

func TestCheckpointPassRestartsALongLog(t *testing.T) {
	db, d := mustOpenCkpt(t, nil, ckptConfig{interval: time.Hour, frames: 16, restart: 64}) // no background passes: run them by hand
	ctx := context.Background()
	frames := func() int64 {
		t.Helper()
		n, ok := d.ckpt.walIndexFrames()
		if !ok {
			t.Fatal("cannot read the wal-index header")
		}
		return n
	}
	recordLoad(t, db, 100)
	if n := frames(); n < 64 {
		t.Fatalf("log of %d frames, want at least 64", n)
	}
	// A reader keeps the log: the RESTART gives up and backs off.
	rtx, err := d.read.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rtx.QueryRow("SELECT count(*) FROM persona_events").Scan(&n); err != nil {
		t.Fatal(err)
	}
	r, err := d.ckpt.pass(ctx)
	if err != nil || r.busy == 0 {
		t.Fatalf("pass with a reader in the log = %+v, %v: want a busy RESTART", r, err)
	}
	if d.ckpt.backoff != maxRestartBackoff || !d.ckpt.nextRestart.After(time.Now()) {
		t.Errorf("after a busy RESTART: backoff %s until %s, want %s from now", d.ckpt.backoff, d.ckpt.nextRestart, maxRestartBackoff)
	}
	// Within the backoff, a pass is PASSIVE only: it does not wait for the
	// reader, so it is not busy.
	if r, err := d.ckpt.pass(ctx); err != nil || r.busy != 0 {
		t.Fatalf("pass within the backoff = %+v, %v: want a PASSIVE one only", r, err)
	}
	rtx.Rollback()
	// After it, with the reader gone, the RESTART finishes and the next
	// write starts the log again.
	d.ckpt.nextRestart = time.Time{}
	if r, err := d.ckpt.pass(ctx); err != nil || r.busy != 0 || r.copied != r.frames {
		t.Fatalf("pass = %+v, %v: want a finished RESTART", r, err)
	}
	if d.ckpt.backoff != 0 {
		t.Errorf("backoff %s after a finished RESTART, want 0", d.ckpt.backoff)
	}
	memorytest.MustRecord(t, db, engine.Correction{RuleID: "tool.x", At: t0.Add(time.Hour)})
	if n := frames(); n >= 64 {
		t.Errorf("after one more write the log has %d frames: it did not start again", n)
	}
	if c := storetest.MustCount(t, db); c.Events != 102 {
		t.Errorf("%d events, want 102", c.Events)
	}
}

func TestCheckpointWaitsForALongLog(t *testing.T) {
	db, d := mustOpenCkpt(t, nil, ckptConfig{interval: time.Hour, frames: 200, restart: 1000}) // passes by hand
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	n := int64(0)
	for i := 0; n < 200; i++ {
		if d.ckpt.due() {
			t.Fatalf("due with %d frames in the log, threshold 200", n)
		}
		if i == 1000 {
			t.Fatalf("the log has only %d frames after %d writes", n, i)
		}
		memorytest.MustRecord(t, db, engine.Correction{RuleID: "tool.x", At: t0.Add(time.Duration(i) * time.Second)})
		var ok bool
		if n, ok = d.ckpt.walIndexFrames(); !ok {
			t.Fatal("cannot read the wal-index header")
		}
	}
	if !d.ckpt.due() {
		t.Errorf("not due with %d frames in the log, threshold 200", n)
	}
	if r, err := d.ckpt.checkpoint(context.Background(), "PASSIVE"); err != nil || r.frames != n {
		t.Errorf("wal-index header says %d frames, PRAGMA wal_checkpoint %d (%v)", n, r.frames, err)
	}
}

func TestCloseStopsTheCheckpointer(t *testing.T) {
	db, d, err := openPath(context.Background(), filepath.Join(t.TempDir(), "lexsona.db"))
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-d.ckpt.done:
	default:
		t.Error("the checkpointer goroutine is still running after Close")
	}
	if err := d.ckpt.pool.Ping(); err == nil {
		t.Error("the checkpointer's connection is still open after Close")
	}
	if got := walSize(t, db); got != 0 {
		t.Errorf("log of %d bytes after Close, want it truncated", got)
	}
	d.ckpt.notify() // a late commit signal must not block or panic
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCheckpointErrorsAreLoggedNotFatal(t *testing.T) {
	var logs testenv.SyncBuffer
	db, d := mustOpenCkpt(t, slog.New(slog.NewTextHandler(&logs, nil)), ckptConfig{interval: time.Millisecond, frames: 1, restart: restartFrames})
	storetest.MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	d.ckpt.pool.Close() // every pass fails from now on
	for i := 0; !strings.Contains(logs.String(), "background checkpoint failed"); i++ {
		if i == 1000 {
			t.Fatalf("no checkpoint failure logged; log:\n%s", logs.String())
		}
		memorytest.MustRecord(t, db, engine.Correction{RuleID: "tool.x", At: t0.Add(time.Duration(i) * time.Second)})
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("checkpoint failure not logged as a warning:\n%s", logs.String())
	}
	memorytest.MustRecord(t, db, engine.Correction{RuleID: "tool.x", At: t0.Add(time.Hour)}) // writes go on
	if _, err := memory.Snapshot(context.Background(), db, engine.SnapshotRequest{Now: t0}); err != nil {
		t.Errorf("Snapshot after checkpoint failures: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close after checkpoint failures: %v", err)
	}
	if got := walSize(t, db); got != 0 {
		t.Errorf("log of %d bytes after Close, want Close's own checkpoint to truncate it", got)
	}
}
