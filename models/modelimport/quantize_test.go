package modelimport_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/bertfuse"
	"github.com/lexsona/lexsona/models/modelimport"
)

// An import writes the int8 variant beside model.onnx — from safetensors
// and from an ONNX source alike — as model_int8.onnx hard-linked at
// onnx/model_int8.onnx, lists it in import.json, and the ort backend runs it
// with --variant int8, close to the float32 graph.
func TestImportWritesInt8Variant(t *testing.T) {
	lib := mustORT(t)
	for _, tc := range []struct {
		name string
		src  func(t *testing.T) string
	}{
		{"safetensors", func(t *testing.T) string { return mustTinyST(t).write(t, filepath.Join(t.TempDir(), "st")) }},
		{"onnx folder", func(t *testing.T) string { return mustTiny(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "model")
			res := mustImport(t, modelimport.Options{Source: tc.src(t), Dest: dst, Spec: &tinySpec})
			v := res.Variants[modelimport.Int8Variant]
			if v == nil || v.File != "model_int8.onnx" || v.Quantizer != bertfuse.QuantizeVersion || v.Weights != 8 || v.Params == 0 {
				t.Fatalf("variants %+v (notes %q)", res.Variants, res.Notes)
			}
			a, err := os.Stat(filepath.Join(dst, "model_int8.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.Stat(filepath.Join(dst, "onnx", "model_int8.onnx"))
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(a, b) {
				t.Error("onnx/model_int8.onnx is not a hard link of model_int8.onnx")
			}
			sum := sha256Of(t, filepath.Join(dst, "model_int8.onnx"))
			if v.SHA256 != sum || res.Outputs["model_int8.onnx"] != sum || res.Outputs["onnx/model_int8.onnx"] != sum {
				t.Errorf("sha256 %s; variant %s, outputs %s, %s", sum, v.SHA256, res.Outputs["model_int8.onnx"], res.Outputs["onnx/model_int8.onnx"])
			}
			want := mustEmbed(t, models.Options{Backend: "ort", ModelDir: dst, OrtLib: lib}, probeTexts)
			got := mustEmbed(t, models.Options{Backend: "ort", ModelDir: dst, OrtLib: lib, Variant: modelimport.Int8Variant}, probeTexts)
			for i := range want {
				c := 0.0
				for k := range want[i] {
					c += float64(want[i][k]) * float64(got[i][k])
				}
				if c < 0.98 {
					t.Errorf("probe %d: cosine %.4f between the int8 and float32 vectors, want >= 0.98", i, c)
				}
			}
		})
	}
}

func sha256Of(tb testing.TB, p string) string {
	tb.Helper()
	res, err := modelimport.FileSHA256(p)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// A model folder without the int8 variant (one `lexsona model pull`
// fetched) gets it, and an import.json listing it; doing it again writes
// nothing.
func TestQuantizeFolder(t *testing.T) {
	tiny := mustTiny(t)
	dir := filepath.Join(t.TempDir(), "pulled")
	for _, f := range append([]string{"model.onnx"}, stFiles...) {
		if b, err := os.ReadFile(filepath.Join(tiny, filepath.FromSlash(f))); err == nil {
			mustWriteFile(t, filepath.Join(dir, filepath.FromSlash(f)), b)
		}
	}
	v, err := modelimport.QuantizeFolder(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Quantizer != bertfuse.QuantizeVersion || v.SHA256 != sha256Of(t, filepath.Join(dir, "model_int8.onnx")) || v.SHA256 != sha256Of(t, filepath.Join(dir, "onnx", "model_int8.onnx")) {
		t.Errorf("variant %+v", v)
	}
	p, err := modelimport.ReadProvenance(dir)
	if err != nil || p.Variants[modelimport.Int8Variant] == nil || p.Variants[modelimport.Int8Variant].SHA256 != v.SHA256 {
		t.Fatalf("import.json: %+v, %v", p, err)
	}
	before := listing(t, dir)
	if again, err := modelimport.QuantizeFolder(context.Background(), dir); err != nil || *again != *v {
		t.Errorf("again: %+v, %v", again, err)
	}
	if after := listing(t, dir); !maps.Equal(before, after) {
		t.Errorf("quantizing again changed the folder:\n%v\n%v", before, after)
	}

	os.Remove(filepath.Join(dir, "config.json"))
	_, err = modelimport.QuantizeFolder(context.Background(), dir)
	wantErr(t, err, engine.EINVALID, "no config.json in "+dir)
	_, err = modelimport.QuantizeFolder(context.Background(), t.TempDir())
	wantErr(t, err, engine.EINVALID, "no model.onnx or onnx/model.onnx")
}
