package modelimport

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// ProvenanceFile is the file in the model folder that says where its model
// came from (Provenance as JSON).
const ProvenanceFile = "import.json"

// afterWrite, when set (by tests), runs after each file is written into
// the temporary folder; an error from it fails the import there.
var afterWrite func(name string) error

// staleAfter is how old a leftover DST.tmp-*/DST.old-* folder must be
// before an import removes it (a younger one may belong to a running import).
const staleAfter = 10 * time.Minute

// sameImport says whether dst already holds this import: its import.json
// names the same importer, model and source sha256, and every file it lists
// is there with the sha256 it lists.
func sameImport(dst string, p *Provenance) bool {
	b, err := os.ReadFile(filepath.Join(dst, ProvenanceFile))
	if err != nil {
		return false
	}
	var old Provenance
	if json.Unmarshal(b, &old) != nil || old.Importer != p.Importer || old.Model != p.Model || old.SourceSHA256 != p.SourceSHA256 || len(old.Outputs) == 0 {
		return false
	}
	for name, sum := range old.Outputs {
		got, err := fileSHA256(filepath.Join(dst, filepath.FromSlash(name)))
		if err != nil || got != sum {
			return false
		}
	}
	*p = old
	return true
}

// checkReplaceable refuses (EINVALID) to replace a dst that is a file, or a
// folder that is neither empty nor a model folder (no import.json,
// model.onnx, onnx/, tokenizer.json or config.json): replacing it would
// delete someone's files. It reports whether dst exists.
func checkReplaceable(dst string) (bool, error) {
	st, err := os.Stat(dst)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", dst, unwrapPathErr(err))
	}
	if !st.IsDir() {
		return false, engine.Errorf(engine.EINVALID, "%s is a file, not a model folder: pass another --model-dir", dst)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		return false, engine.Errorf(engine.EUNAVAILABLE, "cannot list %s: %v", dst, unwrapPathErr(err))
	}
	if len(entries) == 0 {
		return true, nil
	}
	for _, e := range entries {
		if slices.Contains([]string{ProvenanceFile, "model.onnx", "onnx", "tokenizer.json", "config.json"}, e.Name()) {
			return true, nil
		}
	}
	return false, engine.Errorf(engine.EINVALID,
		"%s exists and is not a model folder (no %s, model.onnx or tokenizer.json in it): the import would replace it; pass another --model-dir or remove it", dst, ProvenanceFile)
}

// writeFolder writes files (model-folder path → bytes) into a new folder
// beside dst, syncs them, and renames it into place: dst is either left as
// it was or replaced whole (an existing dst is renamed aside first, then
// removed). Each graph at the top (model.onnx, model_int8.onnx) is also
// linked into onnx/ (linkedInONNX). On any error the
// temporary folder is removed and dst is untouched. Errors are EUNAVAILABLE
// naming the path that could not be written.
func writeFolder(dst string, files map[string][]byte) (err error) {
	parent, base := filepath.Dir(dst), filepath.Base(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot create %s: %v", parent, unwrapPathErr(err))
	}
	removeStale(parent, base)
	tmp, err := os.MkdirTemp(parent, base+".tmp-")
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot create a folder in %s: %v", parent, unwrapPathErr(err))
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	dirs := map[string]bool{tmp: true}
	for _, name := range names {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if !within(p, tmp) || p == tmp {
			return engine.Errorf(engine.EINVALID, "the file name %q would land outside the model folder", name)
		}
		dirs[filepath.Dir(p)] = true
		if err := writeSynced(p, files[name]); err != nil {
			return err
		}
		if afterWrite != nil {
			if err := afterWrite(name); err != nil {
				return err
			}
		}
	}
	for _, name := range names {
		if !linkedInONNX(name) {
			continue
		}
		link := filepath.Join(tmp, "onnx", name)
		dirs[filepath.Dir(link)] = true
		if err := linkOrCopy(filepath.Join(tmp, name), link, files[name]); err != nil {
			return err
		}
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot set the mode of %s: %v", tmp, unwrapPathErr(err))
	}
	return swapInto(tmp, dst)
}

// linkedInONNX says whether the model-folder file name is a graph at the
// folder's top that writeFolder also links into onnx/, where
// sentence-transformers and Transformers.js look for it.
func linkedInONNX(name string) bool {
	return !strings.Contains(name, "/") && strings.HasPrefix(name, "model") && strings.HasSuffix(name, ".onnx")
}

// swapInto renames the finished folder tmp to dst; an existing dst is moved
// aside first and removed once tmp is in place (put back if that fails).
func swapInto(tmp, dst string) error {
	parent := filepath.Dir(dst)
	if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dst); err != nil {
			return engine.Errorf(engine.EUNAVAILABLE, "cannot move the imported model into %s: %v", dst, unwrapPathErr(err))
		}
		return syncDir(parent)
	}
	old := filepath.Join(parent, filepath.Base(dst)+".old-"+randomSuffix())
	if err := os.Rename(dst, old); err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot move the previous %s aside: %v", dst, unwrapPathErr(err))
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Rename(old, dst)
		return engine.Errorf(engine.EUNAVAILABLE, "cannot move the imported model into %s: %v", dst, unwrapPathErr(err))
	}
	if err := syncDir(parent); err != nil {
		return err
	}
	os.RemoveAll(old)
	return nil
}

// removeStale removes base.tmp-* and base.old-* folders in parent left by
// an import that was killed, once they are older than staleAfter.
func removeStale(parent, base string) {
	for _, pattern := range []string{base + ".tmp-*", base + ".old-*"} {
		matches, _ := filepath.Glob(filepath.Join(parent, pattern))
		for _, m := range matches {
			if st, err := os.Lstat(m); err == nil && time.Since(st.ModTime()) > staleAfter {
				os.RemoveAll(m)
			}
		}
	}
}

// writeSynced writes data to a new file at p (creating its folder) and
// syncs it to disk.
func writeSynced(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot create %s: %v", filepath.Dir(p), unwrapPathErr(err))
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot write %s: %v", p, unwrapPathErr(err))
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot write %s: %v", p, err)
	}
	return nil
}

// linkOrCopy hard-links src at dst, or writes data there when the file
// system refuses links.
func linkOrCopy(src, dst string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot create %s: %v", filepath.Dir(dst), unwrapPathErr(err))
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	return writeSynced(dst, data)
}

func syncDir(d string) error {
	f, err := os.Open(d)
	if err != nil {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot open %s: %v", d, unwrapPathErr(err))
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return engine.Errorf(engine.EUNAVAILABLE, "cannot sync %s: %v", d, err)
	}
	return nil
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// fileSHA256 is the hex sha256 of the file at p.
func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// within says whether p is base or inside it.
func within(p, base string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
