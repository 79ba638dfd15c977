package models

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/bertfuse"
	"github.com/lexsona/lexsona/models/modelimport"
)

// mustInt8Folder is a copy of the tiny model folder with its int8 graph
// (bertfuse.Fuse, then bertfuse.Quantize, as `lexsona model import` makes
// it) at onnx/model_int8.onnx and an import.json listing it made by
// quantizer (none when quantizer is "").
func mustInt8Folder(t *testing.T, quantizer string) string {
	t.Helper()
	dir := mustModelCopy(t)
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
	p := filepath.Join(dir, "onnx", modelimport.VariantFile(VariantInt8))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, q8, 0o644); err != nil {
		t.Fatal(err)
	}
	if quantizer != "" {
		sum, err := fileSHA256(p)
		if err != nil {
			t.Fatal(err)
		}
		prov := modelimport.Provenance{Importer: modelimport.Version, Variants: map[string]*modelimport.Variant{
			VariantInt8: {File: modelimport.VariantFile(VariantInt8), SHA256: sum, Quantizer: quantizer},
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
// apart from the float32 graph's. "fp32" and "" are model.onnx, and
// LEXSONA_MODEL_VARIANT is read when Options.Variant is empty.
func TestVariantIdentity(t *testing.T) {
	MustORTLib(t)
	dir := mustInt8Folder(t, "")
	fp32 := MustOpen(t, Options{Backend: "ort", ModelDir: dir, CacheSize: -1}).Identity()
	for _, tc := range []struct {
		name, variant, env string
		want               string // "" the float32 identity, else the variant
	}{
		{"fp32 by name", VariantFP32, "", ""},
		{"int8", VariantInt8, "", VariantInt8},
		{"int8 from the environment", "", VariantInt8, VariantInt8},
		{"the option wins over the environment", VariantFP32, VariantInt8, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LEXSONA_MODEL_VARIANT", tc.env)
			id := MustOpen(t, Options{Backend: "ort", ModelDir: dir, Variant: tc.variant, CacheSize: -1}).Identity()
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
	MustORTLib(t)
	dir := mustInt8Folder(t, "")
	want := MustEmbed(t, MustOpen(t, Options{Backend: "ort", ModelDir: dir, CacheSize: -1}), int8Probes)
	got := MustEmbed(t, MustOpen(t, Options{Backend: "ort", ModelDir: dir, Variant: VariantInt8, CacheSize: -1}), int8Probes)
	for i := range want {
		if c := cosine(want[i], got[i]); c < 0.98 {
			t.Errorf("probe %d %q: cosine %.4f with the float32 vector, want >= 0.98", i, int8Probes[i], c)
		}
	}
}

func TestVariantRefused(t *testing.T) {
	dir := mustInt8Folder(t, "")
	noInt8 := mustModelCopy(t)
	for _, tc := range []struct {
		name      string
		o         Options
		code      string
		fragments []string
	}{
		{"int8 on the go backend", Options{Backend: "go", ModelDir: dir, Variant: VariantInt8}, engine.EINVALID, []string{"go backend", "--embedder ort"}},
		{"no int8 graph", Options{Backend: "go", ModelDir: noInt8, Variant: "qint8_avx512_vnni"}, engine.EUNAVAILABLE, []string{"onnx/model_qint8_avx512_vnni.onnx"}},
		{"a path as variant", Options{Backend: "go", ModelDir: dir, Variant: "../model"}, engine.EINVALID, []string{"bad model variant", "int8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Logger = slog.New(slog.DiscardHandler)
			e, err := Open(t.Context(), tc.o)
			if err == nil {
				e.Close()
			}
			wantErr(t, err, tc.code, tc.fragments...)
		})
	}
}

// auto runs int8 only with a measured rewrite's graph that, on this
// machine, embeds the probe texts like model.onnx; otherwise model.onnx,
// and the log line says why.
func TestAutoVariant(t *testing.T) {
	MustORTLib(t)
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
		{"no int8 graph", func(t *testing.T) string { return mustModelCopy(t) }, true, VariantFP32, []string{"fp32: the model folder has no model_int8.onnx"}},
		{"no import.json", func(t *testing.T) string { return mustInt8Folder(t, "") }, true, VariantFP32, []string{"no readable import.json"}},
		{"not measured", func(t *testing.T) string { return mustInt8Folder(t, "some-other-rewrite") }, true, VariantFP32, []string{"some-other-rewrite, whose quality this version has not measured"}},
		{"measured not to classify as well", func(t *testing.T) string { return mustInt8Folder(t, bertfuse.QuantizeVersion) }, false, VariantFP32, []string{"is not measured to classify like float32: measured by the test"}},
		{"another file than import.json lists", func(t *testing.T) string {
			dir := mustInt8Folder(t, bertfuse.QuantizeVersion)
			mustCopy(t, filepath.Join(dir, "model.onnx"), filepath.Join(dir, "onnx", "model_int8.onnx"))
			return dir
		}, true, VariantFP32, []string{"is not the file import.json lists"}},
		{"measured and checked here", func(t *testing.T) string { return mustInt8Folder(t, bertfuse.QuantizeVersion) }, true, VariantInt8, []string{"int8: the CPU has", "embeds like model.onnx here", "over 14 probe texts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			withVerdict(t, bertfuse.QuantizeVersion, tc.measured)
			dir := tc.folder(t)
			var log bytes.Buffer
			e := MustOpen(t, Options{ModelDir: dir, Variant: VariantAuto, CacheSize: -1, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if got := describeVariantID(e.Identity()); got != tc.want {
				t.Errorf("variant %s, want %s; log:\n%s", got, tc.want, log.String())
			}
			for _, f := range tc.fragments {
				if !strings.Contains(log.String(), f) {
					t.Errorf("the log does not say %q:\n%s", f, log.String())
				}
			}
		})
	}
}

// The check is kept per model files, ONNX Runtime and CPU, and a kept
// check that failed makes auto run model.onnx without embedding anything.
func TestAutoVariantKeepsItsCheck(t *testing.T) {
	MustORTLib(t)
	cpuOK, cpuWhat := int8CPU()
	if !cpuOK {
		t.Skipf("auto never picks int8 on this CPU: %s", cpuWhat)
	}
	withVerdict(t, bertfuse.QuantizeVersion, true)
	dir := mustInt8Folder(t, bertfuse.QuantizeVersion)
	o := Options{ModelDir: dir, Variant: VariantAuto, CacheSize: -1}
	if v := describeVariantID(MustOpen(t, o).Identity()); v != VariantInt8 {
		t.Fatalf("first open: variant %s", v)
	}
	q8sum, _ := fileSHA256(filepath.Join(dir, "onnx", "model_int8.onnx"))
	fp32sum, _ := fileSHA256(filepath.Join(dir, "model.onnx"))
	path := int8CheckPath(dir, int8Check{CPU: cpuWhat, ORT: ortVersion(), Int8: q8sum, FP32: fp32sum})
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
	var log bytes.Buffer
	o.Logger = slog.New(slog.NewTextHandler(&log, nil))
	if v := describeVariantID(MustOpen(t, o).Identity()); v != VariantFP32 || !strings.Contains(log.String(), "min 0.5000") {
		t.Errorf("after a failed check: variant %s, log:\n%s", v, log.String())
	}
}

// describeVariantID names the variant an identity is of.
func describeVariantID(id Identity) string {
	if id.Variant == "" {
		return VariantFP32
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
