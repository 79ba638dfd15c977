package ort

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modelimport"
	"github.com/lexsona/lexsona/models/modeltest"
)

func TestSearchLibGiven(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "libonnxruntime.so.1")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.so")
	tests := []struct {
		name, explicit, env, want, errFragment string
	}{
		{"option wins", present, missing, present, ""},
		{"env", "", present, present, ""},
		{"missing option", missing, "", "", missing},
		{"missing env", "", missing, "", missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := SearchLib(tt.explicit, tt.env, "")
			if tt.errFragment != "" {
				modeltest.WantErr(t, err, engine.EUNAVAILABLE, tt.errFragment, "make ort")
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("SearchLib(%q, %q) = %q, %v; want %q", tt.explicit, tt.env, got, err, tt.want)
			}
		})
	}
}

// TestSearchLib: with no path given, a checkout's .cache/ort wins over the
// installed data folder, which wins over the system loader; every place
// looked at is reported, the one taken last.
func TestSearchLib(t *testing.T) {
	checkout, install := t.TempDir(), t.TempDir()
	modeltest.MustWrite(t, filepath.Join(checkout, "go.mod"), []byte("module x\n"))
	inCheckout := filepath.Join(checkout, ".cache", "ort", libName)
	installed := InstalledLib(install)
	tests := []struct {
		name      string
		files     []string
		want      string
		wantTaken string // the source of the candidate taken
	}{
		{"nothing: the system loader", nil, libName, "system"},
		{"installed", []string{installed}, installed, "installed"},
		{"the checkout's before the installed", []string{inCheckout, installed}, inCheckout, "checkout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(checkout, ".cache"))
			os.RemoveAll(filepath.Join(install, "ort"))
			for _, f := range tt.files {
				modeltest.MustWrite(t, f, nil)
			}
			t.Chdir(checkout)
			got, tried, err := SearchLib("", "", install)
			if err != nil || got != tt.want {
				t.Fatalf("SearchLib = %q, %v; want %q", got, err, tt.want)
			}
			last := tried[len(tried)-1]
			if !last.Taken || last.Source != tt.wantTaken || last.Path != tt.want {
				t.Errorf("last candidate %+v, want %s %s taken", last, tt.wantTaken, tt.want)
			}
			for _, c := range tried[:len(tried)-1] {
				if c.Taken || c.Why == "" {
					t.Errorf("candidate %+v: taken, or no reason given", c)
				}
			}
			if tried[0].Source != "option" || tried[1].Source != "LEXSONA_ORT_LIB" || tried[2].Path != inCheckout {
				t.Errorf("the search does not start with the option, the variable and the checkout: %+v", tried)
			}
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{{"1.30.0", true}, {"1.24.0", true}, {"1.24", true}, {"1.23.2", false}, {"2.0.0", true}, {"1.9.0", false}, {"", false}, {"dev", false}}
	for _, tt := range tests {
		if got := versionAtLeast(tt.v, MinVersion); got != tt.want {
			t.Errorf("versionAtLeast(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// TestORTOtherNames: a model whose output is not called last_hidden_state is
// asked for its names and still embeds identically.
func TestORTOtherNames(t *testing.T) {
	mustLib(t)
	tiny := modeltest.MustTinyModel(t)
	dir := modeltest.CopyModel(t, tiny)
	b, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := bytes.ReplaceAll(b, []byte("last_hidden_state"), []byte("token_embeddings_")) // same length: the protobuf stays valid
	if bytes.Equal(renamed, b) {
		t.Fatal("the tiny model has no last_hidden_state output")
	}
	modeltest.MustWrite(t, filepath.Join(dir, "model.onnx"), renamed)
	texts := []string{"hello", "use pnpm, not npm"}
	want := modeltest.MustEmbed(t, mustOpen(t, models.Options{ModelDir: tiny}), texts)
	got := modeltest.MustEmbed(t, mustOpen(t, models.Options{ModelDir: dir}), texts)
	if d := modeltest.MaxAbsDiff(got, want); d != 0 {
		t.Errorf("renamed output: embeddings differ by %.3g", d)
	}
}

// TestInt8VariantName: the variant Options name is the one modelimport writes.
func TestInt8VariantName(t *testing.T) {
	if models.VariantInt8 != modelimport.Int8Variant {
		t.Errorf("models.VariantInt8 %q, modelimport.Int8Variant %q", models.VariantInt8, modelimport.Int8Variant)
	}
}
