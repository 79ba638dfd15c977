package auto

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
	"github.com/lexsona/lexsona/models/ort"
)

// installLayout lays out what `make install` writes under data, as links:
// the tiny model as models/all-MiniLM-L6-v2 and, when lib is not "", the
// ONNX Runtime library as ort/libonnxruntime.so.1 (the process loads one
// library, and the tests have loaded lib already).
func installLayout(t *testing.T, data, lib string) (model, installedLib string) {
	t.Helper()
	model = models.InstalledModelDir(data)
	links := map[string]string{model: modeltest.MustTinyModel(t)}
	if lib != "" {
		installedLib = ort.InstalledLib(data)
		links[installedLib] = lib
	}
	for link, target := range links {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return model, installedLib
}

// TestOpenFindsInstalled: outside a checkout, with no path given, auto runs
// the model and ONNX Runtime `make install` put in the data folder
// (InstallDir: the command line passes XDG_DATA_HOME/lexsona, see
// internal/config and cmd/lexsona's TestDoctorReportsInstalled), and Choose
// says so, candidate by candidate.
func TestOpenFindsInstalled(t *testing.T) {
	lib := modeltest.MustORTLib(t, ortUsable)
	install := filepath.Join(t.TempDir(), "lexsona")
	model, installedLib := installLayout(t, install, lib)
	t.Chdir(t.TempDir()) // no checkout's .cache/ort on the way up

	c, err := Choose(models.Options{InstallDir: install})
	if err != nil {
		t.Fatal(err)
	}
	if c.Embedder != "ort" || c.ModelDir != model || c.ORTLib != installedLib || c.ORTVersion == "" {
		t.Fatalf("choice %+v: want ort with %s and %s", c, model, installedLib)
	}
	if m := c.ModelCandidates; len(m) != 1 || m[0].Source != "installed" || !m[0].Taken {
		t.Errorf("model candidates %+v: want the installed folder, taken", m)
	}
	if l := c.ORTCandidates[len(c.ORTCandidates)-1]; l.Source != "installed" || !l.Taken || l.Path != installedLib {
		t.Errorf("the last library candidate %+v: want the installed one, taken", l)
	}

	var logs bytes.Buffer
	e := mustOpen(t, models.Options{InstallDir: install, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if e.Backend() != "ort" || !strings.Contains(logs.String(), filepath.Join(model, "model.onnx")) || !strings.Contains(logs.String(), installedLib) {
		t.Errorf("backend %s, log %s: want ort on the installed model and library", e.Backend(), logs.String())
	}
	modeltest.MustEmbed(t, e, []string{"use pnpm, not npm"})
}

// TestLexicalFallbackSaysWhere: with nothing installed, auto's warning names
// the folder and the cache it looked in, and every way to get the model,
// the download as one that needs the hub.
func TestLexicalFallbackSaysWhere(t *testing.T) {
	data, hf := t.TempDir(), t.TempDir()
	var logs bytes.Buffer
	e := mustOpen(t, models.Options{InstallDir: data, HFHubDir: filepath.Join(hf, "hub"), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if e.Backend() != "lexical" {
		t.Fatalf("backend %s, want lexical", e.Backend())
	}
	for _, f := range []string{"embedder: lexical", models.InstalledModelDir(data), "hf_cache " + filepath.Join(hf, "hub"),
		"make install", "lexsona model import SRC", "lexsona model pull if online", "lexsona doctor"} {
		if !strings.Contains(logs.String(), f) {
			t.Errorf("the warning does not say %q:\n%s", f, logs.String())
		}
	}
}
