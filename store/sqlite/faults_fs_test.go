package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/faultfs"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
	"github.com/lexsona/lexsona/store/storetest"
)

// Faults of the file system under an open database, on file systems the
// tests mount (store/internal/faultfs: root, or LEXSONA_REQUIRE_FAULTS=1 to
// fail where they cannot).

// openOn opens a database in dir with cfg; the test closes it at its end,
// ignoring the error of a last checkpoint the file system refuses.
func openOn(t *testing.T, dir string, cfg config) (*store.DB, *Driver) {
	t.Helper()
	d, err := open(context.Background(), filepath.Join(dir, "lexsona.db"), store.Options{Clock: time.Now}, cfg)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	db := store.New(d, store.Options{Clock: time.Now})
	t.Cleanup(func() { _ = db.Close() })
	return db, d
}

// correct records one correction of rule, its text padded to size bytes.
func correct(ctx context.Context, db *store.DB, rule string, i, size int) error {
	text := fmt.Sprintf("correction %d %s", i, strings.Repeat("x", size))
	_, _, err := memorytest.Record(ctx, db, engine.Correction{RuleID: rule, Polarity: engine.Reinforce, UserText: text, At: t0})
	return err
}

// wantFault fails the test unless err is EUNAVAILABLE with the fault kind
// and a message saying words.
func wantFault(t *testing.T, what string, err error, kind store.FaultKind, words string) {
	t.Helper()
	if store.Fault(err) != kind || engine.ErrorCode(err) != engine.EUNAVAILABLE || !strings.Contains(engine.ErrorMessage(err), words) {
		t.Fatalf("%s: %v (fault %d), want EUNAVAILABLE with fault %d saying %q", what, err, store.Fault(err), kind, words)
	}
}

// TestRemountedReadOnly: the file system under an open database turns
// read-only while it serves (ext4 errors=remount-ro after an error), which
// SQLite reports as a disk I/O error: a write fails with the read-only
// fault (EUNAVAILABLE, which the API answers 503, saying read-only),
// Writable reports it from then on (ext4 keeps such a mount read-write:
// only a write finds out), and reads still answer.
func TestRemountedReadOnly(t *testing.T) {
	ctx := context.Background()
	fs := faultfs.MountExt4(t, 64<<20)
	db, _ := openOn(t, fs.Dir, defaultConfig)
	storetest.MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	if err := correct(ctx, db, "tool.a", 0, 100); err != nil {
		t.Fatalf("a correction before the error: %v", err)
	}
	if err := db.Writable(ctx); err != nil {
		t.Fatalf("Writable before the error: %v", err)
	}

	fs.Fail(t)
	for name, write := range map[string]func() error{
		"a correction": func() error { return correct(ctx, db, "tool.a", 1, 100) },
		"a new rule": func() error {
			_, err := storetest.CreateRule(db, engine.NewRule("tool.b", "tool_preference", engine.SeverityShould, "B", engine.Scope{}, engine.DefaultConfig(), t0))
			return err
		},
	} {
		wantFault(t, name+" on a read-only file system", write(), store.FaultReadOnly, "read-only")
	}
	wantFault(t, "Writable after the writes", db.Writable(ctx), store.FaultReadOnly, "read-only")
	if r, err := db.GetRule(ctx, "tool.a"); err != nil || r.Reinforcements != 1 {
		t.Fatalf("a read on a read-only file system: %+v, %v", r, err)
	}
}

// TestDiskFullRecovers: once space is freed after a write failed for it,
// Writable becomes nil by itself, its probe committing a write, with no
// other write sent; while the disk stays full it stays the full-disk fault.
func TestDiskFullRecovers(t *testing.T) {
	ctx := context.Background()
	dir := faultfs.Tmpfs(t, "16m")
	cfg := defaultConfig
	cfg.probeEvery = 0                 // every Writable probes
	cfg.ckpt.interval = 24 * time.Hour // no checkpoint frees the log's space behind the test's back
	db, _ := openOn(t, dir, cfg)
	storetest.MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})

	filler := faultfs.Fill(t, dir)
	var err error
	for i := 0; err == nil; i++ {
		if i == 10000 {
			t.Fatal("10000 corrections committed on a full disk")
		}
		err = correct(ctx, db, "tool.a", i, 2000)
	}
	wantFault(t, "a correction on a full disk", err, store.FaultDiskFull, "full")
	wantFault(t, "Writable on a full disk", db.Writable(ctx), store.FaultDiskFull, "full")

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := db.Writable(ctx); err != nil {
		t.Fatalf("Writable once space is freed, with no write since: %v", err)
	}
	if err := correct(ctx, db, "tool.a", -1, 2000); err != nil {
		t.Fatalf("a correction once ready again: %v", err)
	}
}

// TestWritableProbes: a full disk or a read-only file that a write met is
// probed by Writable at most every probeEvery after it was met; the probe
// records its run in store_jobs and its commit clears the fault. Damage is
// never probed.
func TestWritableProbes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		kind  store.FaultKind
		every time.Duration
		want  store.FaultKind // what Writable reports
	}{
		{"full disk, probed", store.FaultDiskFull, 0, store.FaultNone},
		{"read-only file, probed", store.FaultReadOnly, 0, store.FaultNone},
		{"full disk, just met", store.FaultDiskFull, time.Hour, store.FaultDiskFull},
		{"damage", store.FaultCorrupt, 0, store.FaultCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := defaultConfig
			cfg.probeEvery = tc.every
			db, d := mustOpenWith(t, cfg)
			db.NoteError(store.NewFault(tc.kind, "", errors.New("met by a write")))
			if err := db.Writable(ctx); store.Fault(err) != tc.want {
				t.Fatalf("Writable: %v, want fault %d", err, tc.want)
			}
			_, probed, err := d.Reader(ctx).(queries).JobRanAt(sqldriver.WriteProbe)
			if err != nil || probed != (tc.want == store.FaultNone) {
				t.Fatalf("the probe ran: %v (%v), want %v", probed, err, tc.want == store.FaultNone)
			}
		})
	}
}
