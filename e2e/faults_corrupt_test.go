package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corruptEvents is how many corrections TestFaultCorruptPages stores, enough
// for the events table to have an interior b-tree page.
const corruptEvents = 400

// TestFaultCorruptPages damages an interior page of the events table of a
// database and starts the binary on it: the start is refused (PRAGMA
// quick_check) with a message saying the file is damaged and naming the
// flag that skips the check; started with --skip-integrity-check, the
// server answers reads that miss the page, answers 503 saying the file is
// damaged to one that meets it, and /readyz turns 503 from then on.
func TestFaultCorruptPages(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "lexsona.db")
	p := mustStartFaultServe(t, bin, db, dir)
	if _, err := p.WaitReady(readyLimit); err != nil {
		t.Fatalf("%v\n%s", err, p.Log())
	}
	c := NewClient(p.Base, 1)
	for i := range corruptEvents {
		r, _, err := recordOne(c, fmt.Sprintf("corrupt-%d", i), fmt.Sprintf("correction %d: use pnpm here, never npm, %s", i, strings.Repeat("z", 200)))
		if err != nil || r.Status != http.StatusCreated {
			t.Fatalf("correction %d: %v %d %s", i, err, r.Status, clipBody(r.Body))
		}
	}
	p.Stop(t)
	page := damageInteriorPage(t, db, "persona_events")
	t.Logf("damaged interior page %d of persona_events", page)

	_, err := startFaultServe(t, bin, db, dir)
	if err == nil {
		t.Fatal("the server started on a damaged database")
	}
	for _, want := range []string{"damaged", "--skip-integrity-check"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the refused start does not say %q:\n%v", want, err)
		}
	}

	p = mustStartFaultServe(t, bin, db, dir, "--skip-integrity-check")
	if _, err := p.WaitReady(readyLimit); err != nil {
		t.Fatalf("with --skip-integrity-check: %v\n%s", err, p.Log())
	}
	c = NewClient(p.Base, 1)
	if r := c.MustDo(t, http.MethodGet, "/v1/rules/tool.pnpm-not-npm", "", nil); r.Status != http.StatusOK {
		t.Fatalf("a read that misses the damaged page: %d %s", r.Status, clipBody(r.Body))
	}
	r := c.MustDo(t, http.MethodGet, "/v1/rules/tool.pnpm-not-npm/history", "", nil)
	mustAnswer(t, "a read that meets the damaged page", r, http.StatusServiceUnavailable, "damaged")
	mustAnswer(t, "/readyz once damage was met", readyz(t, c), http.StatusServiceUnavailable, "damaged")
	p.Stop(t)
}

// damageInteriorPage overwrites the header and cell pointers of an interior
// b-tree page of table (its page type byte kept) with 0xFF bytes, and returns
// the page number.
func damageInteriorPage(t *testing.T, db, table string) int64 {
	t.Helper()
	conn := mustOpenDSN(t, "file:"+db+"?mode=ro")
	var page, size int64
	if err := conn.QueryRow(`SELECT pageno, pgsize FROM dbstat WHERE name = ? AND pagetype = 'internal' ORDER BY pageno LIMIT 1`, table).Scan(&page, &size); err != nil {
		t.Fatalf("finding an interior page of %s: %v", table, err)
	}
	conn.Close()
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, 64)
	for i := range junk {
		junk[i] = 0xFF
	}
	if _, err := f.WriteAt(junk, (page-1)*size+1); err != nil {
		t.Fatal(err)
	}
	return page
}
