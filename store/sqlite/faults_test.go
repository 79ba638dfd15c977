package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/memory/memorytest"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

func TestFaultKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want store.FaultKind
	}{
		{nil, store.FaultNone},
		{errors.New("boom"), store.FaultNone},
		{fmt.Errorf("write: %w", syscall.ENOSPC), store.FaultDiskFull},
		{fmt.Errorf("open: %w", syscall.EROFS), store.FaultReadOnly},
		{faultErr(store.FaultCorrupt, "read", errors.New("malformed")), store.FaultCorrupt},
	} {
		if got := kindOf(tc.err); got != tc.want {
			t.Errorf("kindOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
		if tc.want == store.FaultNone {
			continue
		}
		err := dbErr("commit", tc.err)
		if store.Fault(err) != tc.want || engine.ErrorCode(err) != engine.EUNAVAILABLE || engine.ErrorMessage(err) != store.FaultMessage(tc.want) {
			t.Errorf("dbErr(%v) = %v: want EUNAVAILABLE %q", tc.err, err, store.FaultMessage(tc.want))
		}
	}
}

// TestFaultStateClears: a full disk or a read-only file is forgotten at the
// next commit; damage is not, and is not replaced by a lesser fault.
func makeReadOnly(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i %s: %v: %s (root needs the immutable attribute to make a file read-only)", path, err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
}

// TestOpenReadOnly opens a database whose file cannot be written: it reads,
// every write fails at once with the read-only fault, Writable says so, and
// a sync of the registry already in force succeeds without writing.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	db, _, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	yaml := []byte("version: 1\n")
	if _, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: "reg.yaml", YAML: yaml}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	makeReadOnly(t, path)

	db, _, err = openPath(ctx, path)
	if err != nil {
		t.Fatalf("Open of a read-only file: %v", err)
	}
	defer db.Close()
	if !db.ReadOnly() {
		t.Fatal("ReadOnly() = false for a file that cannot be written")
	}
	if _, err := db.GetRule(ctx, "tool.a"); err != nil {
		t.Fatalf("a read: %v", err)
	}
	for name, err := range map[string]error{
		"Writable": db.Writable(ctx),
		"CreateRule": func() error {
			_, err := storetest.CreateRule(db, engine.NewRule("tool.b", "x", engine.SeverityShould, "B", engine.Scope{}, engine.DefaultConfig(), t0))
			return err
		}(),
		"SyncRegistry": func() error {
			_, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: "other.yaml", YAML: yaml})
			return err
		}(),
	} {
		if store.Fault(err) != store.FaultReadOnly || engine.ErrorCode(err) != engine.EUNAVAILABLE || !strings.Contains(engine.ErrorMessage(err), "read-only") {
			t.Errorf("%s on a read-only database: %v, want EUNAVAILABLE saying read-only", name, err)
		}
	}
	if _, err := memory.ApplyRegistry(ctx, db, memory.RegistrySync{Name: "reg.yaml", YAML: yaml}); err != nil {
		t.Errorf("a sync of the registry in force on a read-only database: %v", err)
	}
	if files, err := db.Registries(ctx); err != nil || len(files) != 1 || files[0].Name != "reg.yaml" || string(files[0].YAML) != string(yaml) {
		t.Errorf("Registries of a read-only database = %+v, %v", files, err)
	}
}

// TestSyncRegistryAllOrNothing: definitions, contrary texts and the registry
// in force are written in one transaction; a failure in the contrary texts
// leaves neither the definitions nor the registry in force.
// TestOpenCleansOrphans: embeddings of archived rules are deleted at Open.
func TestOpenCleansOrphans(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	db, d, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	memorytest.MustSync(t, db, storetest.Def("reg.a", "Rule A", "say a"), storetest.Def("reg.b", "Rule B"))
	missing, err := db.MissingEmbeddings(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float32, len(missing))
	for i := range vecs {
		vecs[i] = []float32{1, 0}
	}
	if err := db.PutEmbeddings(ctx, t0, "m", missing, vecs); err != nil {
		t.Fatal(err)
	}
	if _, err := d.write.Exec(`UPDATE persona_rules SET status = 'archived', archived_by = 'registry' WHERE rule_id = 'reg.a'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, d, err = openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var archived, kept int
	if err := d.read.QueryRow(`SELECT count(*) FILTER (WHERE rule_id = 'reg.a'), count(*) FILTER (WHERE rule_id = 'reg.b') FROM persona_embeddings`).Scan(&archived, &kept); err != nil {
		t.Fatal(err)
	}
	if archived != 0 || kept != 1 {
		t.Fatalf("after Open: %d embeddings of the archived rule (want 0), %d of the active one (want 1)", archived, kept)
	}
}

// TestQuickCheck: a sound file passes; a file with a damaged interior page
// fails with the damaged-file fault, which Writable reports from then on.
func TestQuickCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	db, d, err := openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.write.Exec(`CREATE TABLE filler (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if _, err := d.write.Exec(`INSERT INTO filler (v) VALUES (?)`, strings.Repeat("v", 100+i%50)); err != nil {
			t.Fatal(err)
		}
	}
	if finished, err := db.QuickCheck(ctx, 0); !finished || err != nil {
		t.Fatalf("QuickCheck of a sound file = %v, %v", finished, err)
	}
	var page, size int64
	if err := d.read.QueryRow(`SELECT pageno, pgsize FROM dbstat WHERE name = 'filler' AND pagetype = 'internal' LIMIT 1`).Scan(&page, &size); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := []byte(strings.Repeat("\xff", 64))
	if _, err := f.WriteAt(junk, (page-1)*size+1); err != nil {
		t.Fatal(err)
	}
	f.Close()

	db, _, err = openPath(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	finished, err := db.QuickCheck(ctx, 0)
	if !finished || store.Fault(err) != store.FaultCorrupt || !strings.Contains(engine.ErrorMessage(err), "damaged") {
		t.Fatalf("QuickCheck of a damaged file = %v, %v: want the damaged-file fault", finished, err)
	}
	if err := db.Writable(ctx); store.Fault(err) != store.FaultCorrupt {
		t.Fatalf("Writable after damage was found: %v", err)
	}
}

// TestOpenErrNamesTheFault: a database that cannot be opened for a fault of
// its file says which, with its path, instead of the driver's words.
func TestOpenErrNamesTheFault(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("open: %w", syscall.ENOSPC), "disk holding the database is full"},
		{fmt.Errorf("open: %w", syscall.EROFS), "read-only"},
		{errors.New("unable to open database file"), "unable to open database file"},
	} {
		err := openErr("/data/lexsona.db", "open", tc.err)
		msg := engine.ErrorMessage(err)
		if engine.ErrorCode(err) != engine.EUNAVAILABLE || !strings.Contains(msg, "/data/lexsona.db") || !strings.Contains(msg, tc.want) {
			t.Errorf("openErr(%v) = %q, want EUNAVAILABLE naming the file and %q", tc.err, msg, tc.want)
		}
	}
}
