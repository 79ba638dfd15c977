package modelimport_test

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// wheelRecord is a wheel's RECORD for files (path in the wheel → bytes).
func wheelRecord(files map[string][]byte, recordPath string) []byte {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, n := range names {
		sum := sha256.Sum256(files[n])
		fmt.Fprintf(&sb, "%s,sha256=%s,%d\n", n, base64.RawURLEncoding.EncodeToString(sum[:]), len(files[n]))
	}
	fmt.Fprintf(&sb, "%s,,\n", recordPath)
	return []byte(sb.String())
}

// mustZip writes a zip archive of files (path → bytes) at p.
func mustZip(tb testing.TB, p string, files map[string][]byte) string {
	tb.Helper()
	fh, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	zw := zip.NewWriter(fh)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// mustWheel packs a sentence-transformers folder as a wheel (under
// pkg/model/, with a RECORD; record edits the RECORD's entries first) at p.
func mustWheel(tb testing.TB, p string, f stFolder, record func(map[string][]byte)) string {
	tb.Helper()
	files := map[string][]byte{"pkg/__init__.py": []byte("")}
	for name, b := range f {
		files["pkg/model/"+name] = b
	}
	rec := map[string][]byte{}
	for n, b := range files {
		rec[n] = b
	}
	if record != nil {
		record(rec)
	}
	const recordPath = "pkg-0.1.0.dist-info/RECORD"
	files[recordPath] = wheelRecord(rec, recordPath)
	return mustZip(tb, p, files)
}
