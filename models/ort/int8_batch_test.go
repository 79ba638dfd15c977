package ort

import (
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/bertfuse"
	"github.com/lexsona/lexsona/models/modeltest"
)

// The int8 graph scales its activations token by token, so the ort backend
// runs it in batches like the float32 graph, and a text's vector is the
// same alone and among others of other lengths (TestInt8MatchesFP32 checks
// the same on the real model).
func TestInt8BatchesTextsIndependently(t *testing.T) {
	mustLib(t)
	dir := mustInt8Folder(t, bertfuse.QuantizeVersion)
	e := mustOpen(t, models.Options{ModelDir: dir, Variant: models.VariantInt8, CacheSize: -1, MaxBatch: 32})
	if e.perText || e.p.CallSize() != 32 {
		t.Fatalf("the int8 graph runs %d text(s) per call (perText %v), want batches of 32", e.p.CallSize(), e.perText)
	}
	texts := append(append([]string{}, int8Probes...), modeltest.ReferenceTexts(t)...)
	var alone [][]float32
	for _, text := range texts {
		alone = append(alone, modeltest.MustEmbed(t, e, []string{text})...)
	}
	if d := modeltest.MaxAbsDiff(alone, modeltest.MustEmbed(t, e, texts)); d > 1e-6 {
		t.Errorf("int8 vectors embedded alone and in batches differ by %g", d)
	}
}

// Only an int8 graph import.json lists as made by a rewrite scaling per
// token runs in batches.
func TestBatchInvariant(t *testing.T) {
	for _, tc := range []struct {
		name      string
		quantizer string // "" no import.json
		change    bool   // the file differs from the one import.json lists
		want      bool
	}{
		{"bertfuse's rewrite", bertfuse.QuantizeVersion, false, true},
		{"no import.json", "", false, false},
		{"a rewrite scaling per call", "bertfuse-int8-v1", false, false},
		{"an unknown rewrite", "some-other-rewrite", false, false},
		{"another file than import.json lists", bertfuse.QuantizeVersion, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := mustInt8Folder(t, tc.quantizer)
			p := filepath.Join(dir, "onnx", "model_int8.onnx")
			if tc.change {
				modeltest.MustCopy(t, filepath.Join(dir, "model.onnx"), p)
			}
			sum, err := models.FileSHA256(p)
			if err != nil {
				t.Fatal(err)
			}
			folder := &models.Folder{Dir: dir, Model: p, Variant: models.VariantInt8}
			if got := batchInvariant(folder, sum); got != tc.want {
				t.Errorf("batchInvariant = %v, want %v", got, tc.want)
			}
		})
	}
}
