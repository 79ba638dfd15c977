package ort

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/bertfuse"
	"github.com/lexsona/lexsona/models/modelimport"
	"github.com/lexsona/lexsona/models/modeltest"
)

// mustInt8Folder is a copy of the tiny model folder with its int8 graph
// (bertfuse.Fuse, then bertfuse.Quantize, as `lexsona model import` makes
// it) at onnx/model_int8.onnx and an import.json listing it made by
// quantizer (none when quantizer is "").
func mustInt8Folder(t *testing.T, quantizer string) string {
	t.Helper()
	dir := modeltest.MustModelCopy(t)
	cfg, err := bertfuse.ReadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	fused, err := bertfuse.Fuse(src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	q8, _, err := bertfuse.Quantize(fused)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "onnx", modelimport.VariantFile(models.VariantInt8))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, q8, 0o644); err != nil {
		t.Fatal(err)
	}
	if quantizer != "" {
		sum, err := models.FileSHA256(p)
		if err != nil {
			t.Fatal(err)
		}
		prov := modelimport.Provenance{Importer: modelimport.Version, Variants: map[string]*modelimport.Variant{
			models.VariantInt8: {File: modelimport.VariantFile(models.VariantInt8), SHA256: sum, Quantizer: quantizer},
		}}
		b, _ := json.Marshal(prov)
		if err := os.WriteFile(filepath.Join(dir, modelimport.ProvenanceFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// withVerdict makes int8Verdicts say that quantizer's graphs classify like
// float32 (or not) for the test.
func withVerdict(t *testing.T, quantizer string, ok bool) {
	saved := int8Verdicts
	t.Cleanup(func() { int8Verdicts = saved })
	int8Verdicts = map[string]int8Verdict{quantizer: {ClassifiesAsWell: ok, Measured: "measured by the test"}}
}

// The variant is part of the identity: the int8 graph's vectors are keyed
// apart from the float32 graph's. "fp32" and "" are model.onnx (the command
// line passes LEXSONA_MODEL_VARIANT as Options.Variant when --variant is
// not given: cmd/lexsona's TestGlobalFlagsOverConfig).
func TestVariantIdentity(t *testing.T) {
	mustLib(t)
	dir := mustInt8Folder(t, "")
	fp32 := mustOpen(t, models.Options{ModelDir: dir, CacheSize: -1}).Identity()
	for _, tc := range []struct {
		name, variant string
		want          string // "" the float32 identity, else the variant
	}{
		{"fp32 by name", models.VariantFP32, ""},
		{"none named", "", ""},
		{"int8", models.VariantInt8, models.VariantInt8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := mustOpen(t, models.Options{ModelDir: dir, Variant: tc.variant, CacheSize: -1}).Identity()
			if tc.want == "" {
				if id != fp32 {
					t.Errorf("identity %+v, want the float32 one %+v", id, fp32)
				}
				return
			}
			if id.Variant != tc.want || id.SHA256 == fp32.SHA256 || id.Dims != fp32.Dims || id.Name != fp32.Name {
				t.Errorf("identity %+v against float32 %+v", id, fp32)
			}
			if want := fp32.Name + "-" + tc.want + "@" + id.SHA256[:16]; id.ID() != want {
				t.Errorf("ID %q, want %q", id.ID(), want)
			}
		})
	}
}

// The int8 graph embeds the tiny model's probe texts close to the float32
// graph (a random 2-layer model, so the bound is loose; TestInt8MatchesFP32
// holds the real model to the quality targets).
func TestInt8EmbedsLikeFP32(t *testing.T) {
	mustLib(t)
	dir := mustInt8Folder(t, "")
	want := modeltest.MustEmbed(t, mustOpen(t, models.Options{ModelDir: dir, CacheSize: -1}), int8Probes)
	got := modeltest.MustEmbed(t, mustOpen(t, models.Options{ModelDir: dir, Variant: models.VariantInt8, CacheSize: -1}), int8Probes)
	for i := range want {
		if c := cosine(want[i], got[i]); c < 0.98 {
			t.Errorf("probe %d %q: cosine %.4f with the float32 vector, want >= 0.98", i, int8Probes[i], c)
		}
	}
}

func TestAutoVariant(t *testing.T) {
	mustLib(t)
	if ok, what := int8CPU(); !ok {
		t.Skipf("auto never picks int8 on this CPU: %s", what)
	}
	tests := []struct {
		name      string
		folder    func(t *testing.T) string
		measured  bool
		want      string // the variant that runs
		fragments []string
	}{
		{"no int8 graph", func(t *testing.T) string { return modeltest.MustModelCopy(t) }, true, models.VariantFP32, []string{"fp32: the model folder has no model_int8.onnx"}},
		{"no import.json", func(t *testing.T) string { return mustInt8Folder(t, "") }, true, models.VariantFP32, []string{"no readable import.json"}},
		{"not measured", func(t *testing.T) string { return mustInt8Folder(t, "some-other-rewrite") }, true, models.VariantFP32, []string{"some-other-rewrite, whose quality this version has not measured"}},
		{"measured not to classify as well", func(t *testing.T) string { return mustInt8Folder(t, bertfuse.QuantizeVersion) }, false, models.VariantFP32, []string{"is not measured to classify like float32: measured by the test"}},
		{"another file than import.json lists", func(t *testing.T) string {
			dir := mustInt8Folder(t, bertfuse.QuantizeVersion)
			modeltest.MustCopy(t, filepath.Join(dir, "model.onnx"), filepath.Join(dir, "onnx", "model_int8.onnx"))
			return dir
		}, true, models.VariantFP32, []string{"is not the file import.json lists"}},
		{"measured and checked here", func(t *testing.T) string { return mustInt8Folder(t, bertfuse.QuantizeVersion) }, true, models.VariantInt8, []string{"int8: the CPU has", "embeds like model.onnx here", "over 14 probe texts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withVerdict(t, bertfuse.QuantizeVersion, tc.measured)
			dir := tc.folder(t)
			e := mustOpen(t, models.Options{ModelDir: dir, Variant: models.VariantAuto})
			if got := describeVariantID(e.Identity()); got != tc.want {
				t.Errorf("variant %s, want %s; why: %s", got, tc.want, e.why)
			}
			for _, f := range tc.fragments {
				if !strings.Contains(e.why, f) {
					t.Errorf("why %q does not say %q", e.why, f)
				}
			}
			if !strings.Contains(fmt.Sprint(e.LogAttrs()...), e.why) {
				t.Errorf("the log attributes %v do not say why", e.LogAttrs())
			}
		})
	}
}

// The check is kept per model files, ONNX Runtime and CPU, and a kept
// check that failed makes auto run model.onnx without embedding anything.
func TestAutoVariantKeepsItsCheck(t *testing.T) {
	mustLib(t)
	cpuOK, cpuWhat := int8CPU()
	if !cpuOK {
		t.Skipf("auto never picks int8 on this CPU: %s", cpuWhat)
	}
	withVerdict(t, bertfuse.QuantizeVersion, true)
	dir := mustInt8Folder(t, bertfuse.QuantizeVersion)
	o := models.Options{ModelDir: dir, Variant: models.VariantAuto}
	if v := describeVariantID(mustOpen(t, o).Identity()); v != models.VariantInt8 {
		t.Fatalf("first open: variant %s", v)
	}
	q8sum, _ := models.FileSHA256(filepath.Join(dir, "onnx", "model_int8.onnx"))
	fp32sum, _ := models.FileSHA256(filepath.Join(dir, "model.onnx"))
	path := int8CheckPath(dir, int8Check{CPU: cpuWhat, ORT: version(), Int8: q8sum, FP32: fp32sum})
	var kept int8Check
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &kept) != nil || kept.Texts != len(int8Probes) || !kept.ok() {
		t.Fatalf("the kept check %s: %v %+v", path, err, kept)
	}
	kept.Min = 0.5
	b, _ = json.Marshal(kept)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	e := mustOpen(t, o)
	if v := describeVariantID(e.Identity()); v != models.VariantFP32 || !strings.Contains(e.why, "min 0.5000") {
		t.Errorf("after a failed check: variant %s, why: %s", v, e.why)
	}
}

// describeVariantID names the variant an identity is of.
func describeVariantID(id models.Identity) string {
	if id.Variant == "" {
		return models.VariantFP32
	}
	return id.Variant
}

func cosine(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
