package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/config"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/ort"
)

// runDoctor runs `lexsona doctor args…` as run does, and returns the exit
// code, stdout and stderr.
func runDoctor(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, cfg: config.Load()}
	root := newRoot(a)
	if c, _, err := root.Find([]string{"doctor"}); err != nil || c == root {
		root.AddCommand(newDoctorCmd(a))
		markUsage(root)
	}
	root.SetArgs(append([]string{"doctor"}, args...))
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(context.Background())
	a.close()
	if err != nil {
		a.reportError(err)
	}
	return exitCode(err), out.String(), errb.String()
}

// installedLayout makes a temp XDG_DATA_HOME holding what `make install`
// writes, the fixture model and the tests' ONNX Runtime library in its
// place, and returns the model folder and the library's path.
func installedLayout(t *testing.T) (model, lib string) {
	t.Helper()
	found, _, _, err := ort.Usable("", testenv.ORTLib(), "")
	if err != nil {
		testenv.Missing(t, testenv.RequireORTEnv, "ONNX Runtime is unusable (%v): run `make ort`", err)
	}
	tiny := filepath.Join(testenv.RepoRoot(t), ".cache", "models", "tiny")
	if _, err := os.Stat(filepath.Join(tiny, "model.onnx")); err != nil {
		t.Skipf("no tiny model in %s: run `make fixtures`", tiny)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	model, lib = models.InstalledModelDir(filepath.Join(xdg, "lexsona")), ort.InstalledLib(filepath.Join(xdg, "lexsona"))
	for _, l := range [][2]string{{tiny, model}, {found, lib}} {
		os.MkdirAll(filepath.Dir(l[1]), 0o755)
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	return model, lib
}

// TestDoctorReportsInstalled: outside a checkout, with no flag or variable
// naming a path, doctor reports the installed model and library as what
// runs, the checkout's .cache/ort looked at and not found.
func TestDoctorReportsInstalled(t *testing.T) {
	newCLI(t)
	t.Setenv("LEXSONA_EMBEDDER", "")
	model, lib := installedLayout(t)
	t.Setenv("LEXSONA_ORT_LIB", "")
	t.Setenv("LEXSONA_MODEL_DIR", "")
	t.Chdir(t.TempDir())

	code, out, errs := runDoctor(t, "--json", "--offline")
	if code != 0 {
		t.Fatalf("doctor: exit %d, stderr %s", code, errs)
	}
	var r struct {
		Embedder        string             `json:"embedder"`
		ModelDir        string             `json:"model_dir"`
		ORTLib          string             `json:"onnxruntime_library"`
		ORTVersion      string             `json:"onnxruntime_version"`
		InstallDir      string             `json:"install_dir"`
		ModelCandidates []models.Candidate `json:"model_candidates"`
		ORTCandidates   []models.Candidate `json:"onnxruntime_candidates"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if r.Embedder != "ort" || r.ModelDir != model || r.ORTLib != lib || r.ORTVersion == "" || r.InstallDir != filepath.Dir(filepath.Dir(model)) {
		t.Errorf("doctor %+v: want ort with %s and %s", r, model, lib)
	}
	if len(r.ModelCandidates) != 1 || r.ModelCandidates[0].Source != "installed" || !r.ModelCandidates[0].Taken {
		t.Errorf("model candidates %+v", r.ModelCandidates)
	}
	sources := map[string]bool{}
	for _, c := range r.ORTCandidates {
		sources[c.Source] = true
		if c.Taken != (c.Path == lib) {
			t.Errorf("library candidate %+v: only %s is taken", c, lib)
		}
	}
	for _, s := range []string{"--ort-lib", "LEXSONA_ORT_LIB", "checkout", "installed"} {
		if !sources[s] {
			t.Errorf("no %s candidate among %+v", s, r.ORTCandidates)
		}
	}

	code, out, _ = runDoctor(t, "--offline")
	for _, f := range []string{"embedder      ort: the model and ONNX Runtime are both here", "model         " + filepath.Join(model, "model.onnx"),
		"yes installed", "onnxruntime   " + lib, "install dir   " + r.InstallDir} {
		if code != 0 || !strings.Contains(out, f) {
			t.Errorf("doctor: exit %d, the report lacks %q:\n%s", code, f, out)
		}
	}
}

// TestDoctorNoModelHubUnreachable: with nothing installed and a hub that
// cannot be reached, doctor reports the lexical embedder, the places
// looked in, and a fix that does not offer `lexsona model pull` as working.
func TestDoctorNoModelHubUnreachable(t *testing.T) {
	newCLI(t)
	t.Setenv("LEXSONA_EMBEDDER", "")
	t.Setenv("LEXSONA_MODEL_DIR", "")
	xdg, hf := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", xdg)
	t.Setenv("HF_HUB_CACHE", hf)
	code, out, errs := runDoctor(t, "--hub", "http://127.0.0.1:1")
	if code != 0 {
		t.Fatalf("doctor: exit %d, stderr %s", code, errs)
	}
	want := []string{"embedder      lexical: no model folder at " + filepath.Join(xdg, "lexsona", "models", models.ModelName),
		"no  installed", "no  hf_cache", "hub           unreachable: cannot reach http://127.0.0.1:1",
		"fix           `make install` in a LexSona checkout", "`lexsona model import SRC`", "`lexsona model pull` cannot work here"}
	for _, f := range want {
		if !strings.Contains(out, f) {
			t.Errorf("the report lacks %q:\n%s", f, out)
		}
	}
	if strings.Contains(out, "downloads it where") {
		t.Errorf("the report offers the download with the hub unreachable:\n%s", out)
	}
}

// TestDoctorBackendCannotOpen: an asked-for backend that cannot open is
// reported, and the exit code says so.
func TestDoctorBackendCannotOpen(t *testing.T) {
	newCLI(t)
	missing := filepath.Join(t.TempDir(), "none")
	code, out, errs := runDoctor(t, "--embedder", "go", "--model-dir", missing, "--offline")
	if code != 1 || !strings.Contains(out, "none (go cannot open)") || !strings.Contains(out, "no  --model-dir") || !strings.Contains(errs, missing) {
		t.Errorf("doctor --embedder go with no model: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}
