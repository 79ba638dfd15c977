package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// diskFullAttempts bounds the corrections sent to fill the disk's last
// free bytes (each adds a few pages to the write-ahead log).
const diskFullAttempts = 20000

// TestFaultDiskFull runs the server on a 48 MiB tmpfs (the database with the default pack takes about 10 MiB), fills it, and checks
// that a write that cannot commit answers 503 saying the disk is full, that
// /readyz says not ready (and why) while writes cannot commit, that reads
// still answer, that freeing space makes the next write succeed and the
// server ready again, that no acknowledged correction is lost, and that a
// restart on a full disk either starts or says the disk is full.
func TestFaultDiskFull(t *testing.T) {
	bin := MustBuildBinary(t)
	dir := mustMountTmpfs(t, "48m")
	logs := t.TempDir()
	db := filepath.Join(dir, "lexsona.db")
	p := mustStartFaultServe(t, bin, db, logs)
	if _, err := p.WaitReady(readyLimit); err != nil {
		t.Fatalf("%v\n%s", err, p.Log())
	}
	c := NewClient(p.Base, 1)
	var acked []int64
	record := func(c *Client, i int) Response {
		r, id, err := recordOne(c, fmt.Sprintf("full-%d", i), fmt.Sprintf("disk full test correction %d %s", i, strings.Repeat("x", 512)))
		if err != nil {
			t.Fatalf("correction %d: %v", i, err)
		}
		if r.Status == http.StatusCreated {
			acked = append(acked, id)
		}
		return r
	}
	mustAnswer(t, "a correction before the disk is full", record(c, 0), http.StatusCreated, "")

	filler := fillDisk(t, dir)
	var failed Response
	for i := 1; i <= diskFullAttempts; i++ {
		if r := record(c, i); r.Status != http.StatusCreated {
			failed = r
			break
		}
	}
	if failed.Status == 0 {
		t.Fatalf("%d corrections all committed on a full disk", diskFullAttempts)
	}
	mustAnswer(t, "a correction on a full disk", failed, http.StatusServiceUnavailable, "disk")
	mustAnswer(t, "a correction on a full disk", failed, http.StatusServiceUnavailable, "full")
	mustAnswer(t, "/readyz while writes cannot commit", readyz(t, c), http.StatusServiceUnavailable, "full")
	if r := c.MustDo(t, http.MethodGet, "/v1/rules/tool.pnpm-not-npm", "", nil); r.Status != http.StatusOK {
		t.Fatalf("a read on a full disk: %d %s", r.Status, clipBody(r.Body))
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	mustAnswer(t, "a correction once space is freed", record(c, diskFullAttempts+1), http.StatusCreated, "")
	if r := readyz(t, c); r.Status != http.StatusOK {
		t.Fatalf("/readyz after a write committed again: %d %s", r.Status, clipBody(r.Body))
	}
	p.Stop(t)
	mustHoldEvents(t, db, acked, false)
	t.Logf("%d corrections acknowledged around a full disk, all stored; the failing one answered %d %s",
		len(acked), failed.Status, clipBody(failed.Body))

	// A start on a full disk: it serves (reads need no space) or refuses
	// saying the disk is full, never with a bare driver message.
	fillDisk(t, dir)
	p2, err := startFaultServe(t, bin, db, logs)
	if err != nil {
		if !strings.Contains(err.Error(), "disk") || !strings.Contains(err.Error(), "full") {
			t.Fatalf("a start on a full disk failed without saying the disk is full: %v", err)
		}
		t.Logf("a start on a full disk refused: %v", firstLine(err.Error()))
		return
	}
	c2 := NewClient(p2.Base, 1)
	if r := c2.MustDo(t, http.MethodGet, "/v1/rules/tool.pnpm-not-npm", "", nil); r.Status != http.StatusOK {
		t.Fatalf("a read after a start on a full disk: %d %s", r.Status, clipBody(r.Body))
	}
	var last Response
	for i := range diskFullAttempts {
		if last = record(c2, diskFullAttempts+2+i); last.Status != http.StatusCreated {
			break
		}
	}
	mustAnswer(t, "a correction after a start on a full disk", last, http.StatusServiceUnavailable, "full")
	mustAnswer(t, "/readyz after a start on a full disk", readyz(t, c2), http.StatusServiceUnavailable, "full")
	p2.Stop(t)
}

// fillDisk writes a file in dir until the file system is full and returns
// its path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "filler-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for size := len(buf); size > 0; {
		if _, err := f.Write(buf[:size]); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling %s: %v", dir, err)
			}
			size /= 2 // the last bytes
		}
	}
	return f.Name()
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
