package modelimport

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"io"
	"os"
	"path"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// openZip opens a wheel or a jar and finds the model in it (see findLayout).
// A wheel's files are checked against its .dist-info/RECORD when read.
// Errors (*engine.Error): EINVALID when the file is not a zip, holds no
// model or several, or its RECORD is malformed or lacks a file the import
// reads; EUNAVAILABLE when it cannot be read.
func openZip(p, kind string, size int64) (*source, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", p, unwrapPathErr(err))
	}
	ok := false
	defer func() {
		if !ok {
			fh.Close()
		}
	}()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", p, err)
	}
	zr, err := zip.NewReader(fh, size)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "%s is not a zip archive (a %s is one): %v", p, kind, err)
	}
	entries := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		if !safeEntryName(f.Name) {
			return nil, engine.Errorf(engine.EINVALID, "%s holds an entry with an unsafe name %q", p, f.Name)
		}
		entries[f.Name] = f
		names = append(names, f.Name)
	}
	l, err := findLayout(names, p)
	if err != nil {
		return nil, err
	}
	s := &source{path: p, kind: kind, root: p + "!/" + l.root, files: map[string]*srcFile{}, read: map[string]string{},
		archive: hex.EncodeToString(h.Sum(nil)), closer: fh, notes: l.notes}
	var record map[string]digest
	if kind == KindWheel {
		if record, err = wheelRecord(p, entries); err != nil {
			return nil, err
		}
		if record != nil {
			s.checksums = "the wheel's RECORD"
		}
	}
	for key, name := range l.files {
		zf := entries[name]
		f := &srcFile{name: p + "!/" + name, open: zf.Open}
		if record != nil {
			d, ok := record[name]
			if !ok {
				return nil, engine.Errorf(engine.EINVALID, "%s: %s is not in the wheel's RECORD: the wheel is altered; fetch it again", p, name)
			}
			f.want = d
		}
		s.files[key] = f
	}
	ok = true
	return s, nil
}

// wheelRecord reads the sha256 of every file listed in the wheel's
// *.dist-info/RECORD (CSV: path, sha256=<urlsafe base64, unpadded>, size).
// A wheel without a RECORD gives nil (nothing to verify against).
func wheelRecord(p string, entries map[string]*zip.File) (map[string]digest, error) {
	var rec *zip.File
	for name, f := range entries {
		if dir, base := path.Split(name); base == "RECORD" && strings.Count(dir, "/") == 1 && strings.HasSuffix(dir, ".dist-info/") {
			rec = f
		}
	}
	if rec == nil {
		return nil, nil
	}
	rc, err := rec.Open()
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "%s: cannot read %s: %v", p, rec.Name, err)
	}
	defer rc.Close()
	rows, err := csv.NewReader(rc).ReadAll()
	bad := func(why string) error {
		return engine.Errorf(engine.EINVALID, "%s: %s is malformed (%s): the wheel is corrupt; fetch it again", p, rec.Name, why)
	}
	if err != nil {
		return nil, bad(err.Error())
	}
	out := map[string]digest{}
	for _, row := range rows {
		if len(row) < 2 {
			return nil, bad("a row without a hash column")
		}
		if row[1] == "" {
			continue // RECORD itself and signatures are listed without a hash
		}
		algo, b64, found := strings.Cut(row[1], "=")
		if !found || algo != "sha256" {
			continue // another algorithm: not one this check knows
		}
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(b64, "="))
		if err != nil || len(raw) != sha256.Size {
			return nil, bad("the hash of " + row[0] + " is not a sha256")
		}
		out[row[0]] = digest{algo: "sha256", hex: hex.EncodeToString(raw), from: "the wheel's RECORD"}
	}
	return out, nil
}

// safeEntryName refuses absolute entry names and ones that climb with "..".
func safeEntryName(name string) bool {
	if strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return false
		}
	}
	return true
}
