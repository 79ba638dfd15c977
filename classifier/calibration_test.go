package classifier

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

func TestCalibrationRoundTrip(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c := Calibration{Model: "lexical-v1@0123456789abcdef", Embedder: "lexical", Thresholds: Thresholds{0.62, 0.4},
		CreatedAt: &at, Dataset: "eval/testdata/dev.jsonl", Details: json.RawMessage(`{"ece":0.03}`)}
	path := filepath.Join(t.TempDir(), "cal", CalibrationFileName(c.Model))
	if err := WriteCalibration(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCalibration(path)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, got.Details); err != nil {
		t.Fatal(err)
	}
	got.Details = compact.Bytes()
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := WriteCalibration(path, Calibration{Model: "m", Thresholds: Thresholds{0.5, 0.9}}); engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("writing bad thresholds: %v", err)
	}
	if again, _ := LoadCalibration(path); again.Thresholds != c.Thresholds {
		t.Error("a rejected write changed the file")
	}
}

func TestCalibrationFileName(t *testing.T) {
	for in, want := range map[string]string{
		"all-MiniLM-L6-v2@0123456789abcdef": "all-MiniLM-L6-v2_0123456789abcdef.json",
		"../../etc/passwd":                  "_.._etc_passwd.json",
		"":                                  "model.json",
	} {
		if got := CalibrationFileName(in); got != want {
			t.Errorf("CalibrationFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadCalibrationErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		path, code string
	}{
		{filepath.Join(dir, "missing.json"), engine.ENOTFOUND},
		{write("garbage.json", "{"), engine.EINVALID},
		{write("nomodel.json", `{"thresholds":{"auto":0.8,"confirm":0.7}}`), engine.EINVALID},
		{write("inverted.json", `{"model":"m","thresholds":{"auto":0.6,"confirm":0.7}}`), engine.EINVALID},
		{write("extra.json", `{"model":"m","thresholds":{"auto":0.8,"confirm":0.7},"ece":0.1}`), ""},
	} {
		_, err := LoadCalibration(tt.path)
		if got := engine.ErrorCode(err); got != tt.code {
			t.Errorf("LoadCalibration(%s): %v, want code %q", filepath.Base(tt.path), err, tt.code)
		}
	}
}

// TestThresholdPrecedence: explicit options > calibration file > defaults.
func TestThresholdPrecedence(t *testing.T) {
	id := models.Identity{Name: "all-MiniLM-L6-v2", SHA256: "0123456789abcdef0123", Dims: 384}
	dir := t.TempDir()
	calPath := filepath.Join(dir, CalibrationFileName(id.ID()))
	if err := WriteCalibration(calPath, Calibration{Model: id.ID(), Thresholds: Thresholds{0.8, 0.6}}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.json")
	if err := WriteCalibration(other, Calibration{Model: "lexical-v1@ffff", Thresholds: Thresholds{0.6, 0.3}}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LEXSONA_DATA", "")
	tests := []struct {
		name   string
		opts   Options
		want   Thresholds
		source string
		code   string
	}{
		{"defaults", Options{}, miniLMThresholds, SourceDefault, ""},
		{"calibration dir", Options{CalibrationDir: dir}, Thresholds{0.8, 0.6}, SourceCalibration + ":" + calPath, ""},
		{"options win", Options{CalibrationDir: dir, Thresholds: &Thresholds{0.9, 0.75}}, Thresholds{0.9, 0.75}, SourceOptions, ""},
		{"explicit file", Options{CalibrationFile: calPath}, Thresholds{0.8, 0.6}, SourceCalibration + ":" + calPath, ""},
		{"dir without a file", Options{CalibrationDir: t.TempDir()}, miniLMThresholds, SourceDefault, ""},
		{"explicit file missing", Options{CalibrationFile: filepath.Join(dir, "nope.json")}, Thresholds{}, "", engine.ENOTFOUND},
		{"file of another model", Options{CalibrationFile: other}, Thresholds{}, "", engine.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, src, err := resolveThresholds(tt.opts, id)
			MustCode(t, err, tt.code)
			if got != tt.want || src != tt.source {
				t.Errorf("got %v from %q, want %v from %q", got, src, tt.want, tt.source)
			}
		})
	}
	// The classifier reads no environment: a calibration file under
	// LEXSONA_DATA counts only when the composition root passes its folder
	// (internal/setup.ClassifierOptions, tested there).
	t.Run("LEXSONA_DATA alone is not read", func(t *testing.T) {
		data := t.TempDir()
		t.Setenv("LEXSONA_DATA", data)
		p := filepath.Join(data, "calibration", CalibrationFileName(id.ID()))
		if err := WriteCalibration(p, Calibration{Model: id.ID(), Thresholds: Thresholds{0.77, 0.66}}); err != nil {
			t.Fatal(err)
		}
		if got, src, err := resolveThresholds(Options{}, id); err != nil || got != miniLMThresholds || src != SourceDefault {
			t.Errorf("got %v from %q, %v; want the defaults", got, src, err)
		}
		if got, _, err := resolveThresholds(Options{CalibrationDir: filepath.Join(data, "calibration")}, id); err != nil || got != (Thresholds{0.77, 0.66}) {
			t.Errorf("with the folder passed: got %v, %v", got, err)
		}
	})
}

// TestClassifierUsesCalibration: a calibration file for the lexical model
// changes the bands Classify reports.
func TestClassifierUsesCalibration(t *testing.T) {
	dir := t.TempDir()
	emb := MustLexical(t, nil)
	if err := WriteCalibration(filepath.Join(dir, CalibrationFileName(emb.Identity().ID())),
		Calibration{Model: emb.Identity().ID(), Embedder: "lexical", Thresholds: Thresholds{0.9, 0.45}}); err != nil {
		t.Fatal(err)
	}
	c := New(newMemCorpus(t, nil, emb), emb, Options{CalibrationDir: dir})
	got, src, err := c.Thresholds()
	if err != nil || got != (Thresholds{0.9, 0.45}) || src == SourceDefault {
		t.Fatalf("Thresholds() = %v, %q, %v", got, src, err)
	}
	r, err := c.Classify(t.Context(), "stop editing files with sed", engine.Scope{})
	if err != nil || r.Thresholds != got {
		t.Fatalf("Classify: %+v, %v", r, err)
	}
}
