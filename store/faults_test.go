package store

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
)

func TestFaultKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want FaultKind
	}{
		{nil, FaultNone},
		{errors.New("boom"), FaultNone},
		{fmt.Errorf("write: %w", syscall.ENOSPC), FaultDiskFull},
		{fmt.Errorf("open: %w", syscall.EROFS), FaultReadOnly},
		{faultErr(FaultCorrupt, "read", errors.New("malformed")), FaultCorrupt},
	} {
		if got := kindOf(tc.err); got != tc.want {
			t.Errorf("kindOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
		if tc.want == FaultNone {
			continue
		}
		err := dbErr("commit", tc.err)
		if Fault(err) != tc.want || engine.ErrorCode(err) != engine.EUNAVAILABLE || engine.ErrorMessage(err) != faultMessages[tc.want] {
			t.Errorf("dbErr(%v) = %v: want EUNAVAILABLE %q", tc.err, err, faultMessages[tc.want])
		}
	}
}

// TestFaultStateClears: a full disk or a read-only file is forgotten at the
// next commit; damage is not, and is not replaced by a lesser fault.
func TestFaultStateClears(t *testing.T) {
	full := faultErr(FaultDiskFull, "commit", syscall.ENOSPC)
	corrupt := faultErr(FaultCorrupt, "read", errors.New("malformed"))
	var s faultState
	s.note(errors.New("not a fault"))
	if s.get() != nil {
		t.Fatal("an ordinary error was recorded as a fault")
	}
	s.note(full)
	if Fault(s.get()) != FaultDiskFull {
		t.Fatalf("after a full disk: %v", s.get())
	}
	s.note(nil)
	if s.get() != nil {
		t.Fatalf("a commit did not clear the full disk: %v", s.get())
	}
	s.note(corrupt)
	s.note(full)
	s.note(nil)
	if Fault(s.get()) != FaultCorrupt {
		t.Fatalf("damage was forgotten: %v", s.get())
	}
}

// makeReadOnly makes path impossible to write for this process: the
// immutable attribute for root (whom permissions do not stop), mode 0444
// otherwise; the test is skipped where neither works.
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
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	MustCreate(t, db, "tool.a", "tool_preference", engine.Scope{})
	yaml := []byte("version: 1\n")
	if err := db.SaveRegistry(ctx, "reg.yaml", yaml); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	makeReadOnly(t, path)

	db, err = Open(ctx, path)
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
			_, err := db.CreateRule(ctx, engine.NewRule("tool.b", "x", engine.SeverityShould, "B", engine.Scope{}, engine.DefaultConfig(), t0))
			return err
		}(),
		"SyncRegistry": func() error { _, err := db.SyncRegistry(ctx, RegistrySync{Name: "other.yaml", YAML: yaml}); return err }(),
	} {
		if Fault(err) != FaultReadOnly || engine.ErrorCode(err) != engine.EUNAVAILABLE || !strings.Contains(engine.ErrorMessage(err), "read-only") {
			t.Errorf("%s on a read-only database: %v, want EUNAVAILABLE saying read-only", name, err)
		}
	}
	if _, err := db.SyncRegistry(ctx, RegistrySync{Name: "reg.yaml", YAML: yaml}); err != nil {
		t.Errorf("a sync of the registry in force on a read-only database: %v", err)
	}
	if err := db.SaveRegistry(ctx, "reg.yaml", yaml); err != nil {
		t.Errorf("SaveRegistry of the registry in force on a read-only database: %v", err)
	}
}

// TestSyncRegistryAllOrNothing: definitions, contrary texts and the registry
// in force are written in one transaction; a failure in the contrary texts
// leaves neither the definitions nor the registry in force.
func TestSyncRegistryAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	defs := []engine.Definition{def("reg.a", "Rule A"), def("reg.b", "Rule B")}
	bad := RegistrySync{Definitions: defs, Name: "r.yaml", YAML: []byte("v2"),
		Contrary: func([]string) map[string][]string {
			return map[string][]string{"reg.a": {"A is fine"}, "reg.zzz": {"no such rule"}}
		}}
	if _, err := db.SyncRegistry(ctx, bad); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("a sync whose contrary texts name an unknown rule: %v, want ENOTFOUND", err)
	}
	if _, err := db.GetRule(ctx, "reg.a"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Fatalf("the failed sync left reg.a: %v", err)
	}
	if _, _, ok, _ := db.Registry(ctx); ok {
		t.Fatal("the failed sync recorded its registry in force")
	}
	good := bad
	good.Contrary = func(kept []string) map[string][]string { return map[string][]string{"reg.a": {"A is fine"}} }
	res, err := db.SyncRegistry(ctx, good)
	if err != nil || len(res.Added) != 2 {
		t.Fatalf("SyncRegistry = %+v, %v", res, err)
	}
	name, yaml, ok, err := db.Registry(ctx)
	if err != nil || !ok || name != "r.yaml" || string(yaml) != "v2" {
		t.Fatalf("registry in force = %q %q %v %v", name, yaml, ok, err)
	}
	texts, err := db.RuleTexts(ctx, "reg.a")
	if err != nil {
		t.Fatal(err)
	}
	var contrary int
	for _, x := range texts {
		if x.Kind == KindContrary {
			contrary++
		}
	}
	if contrary != 1 {
		t.Fatalf("reg.a has %d contrary texts, want 1: %+v", contrary, texts)
	}
}

// TestOpenCleansOrphans: embeddings of archived rules are deleted at Open.
func TestOpenCleansOrphans(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lexsona.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, db, def("reg.a", "Rule A", "say a"), def("reg.b", "Rule B"))
	missing, err := db.MissingEmbeddings(ctx, "m")
	if err != nil {
		t.Fatal(err)
	}
	vecs := make([][]float32, len(missing))
	for i := range vecs {
		vecs[i] = []float32{1, 0}
	}
	if err := db.PutEmbeddings(ctx, "m", missing, vecs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.Exec(`UPDATE persona_rules SET status = 'archived', archived_by = 'registry' WHERE rule_id = 'reg.a'`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var archived, kept int
	if err := db.read.QueryRow(`SELECT count(*) FILTER (WHERE rule_id = 'reg.a'), count(*) FILTER (WHERE rule_id = 'reg.b') FROM persona_embeddings`).Scan(&archived, &kept); err != nil {
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
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.Exec(`CREATE TABLE filler (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if _, err := db.write.Exec(`INSERT INTO filler (v) VALUES (?)`, strings.Repeat("v", 100+i%50)); err != nil {
			t.Fatal(err)
		}
	}
	if finished, err := db.QuickCheck(ctx, 0); !finished || err != nil {
		t.Fatalf("QuickCheck of a sound file = %v, %v", finished, err)
	}
	var page, size int64
	if err := db.read.QueryRow(`SELECT pageno, pgsize FROM dbstat WHERE name = 'filler' AND pagetype = 'internal' LIMIT 1`).Scan(&page, &size); err != nil {
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

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	finished, err := db.QuickCheck(ctx, 0)
	if !finished || Fault(err) != FaultCorrupt || !strings.Contains(engine.ErrorMessage(err), "damaged") {
		t.Fatalf("QuickCheck of a damaged file = %v, %v: want the damaged-file fault", finished, err)
	}
	if err := db.Writable(ctx); Fault(err) != FaultCorrupt {
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
