package bertfuse

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// tinyConfig is the committed tiny fixture's config.json (hidden 32, 2 layers).
var tinyConfig = Config{Hidden: 32, Heads: 2, Layers: 2, Intermediate: 64, Eps: 1e-12, Act: "gelu", ModelType: "bert"}

// MustTinyModel returns the bytes of the committed tiny BERT fixture
// (models/testdata/tiny-model.onnx.gz, written by scripts/gen_bert_onnx.py).
func MustTinyModel(tb testing.TB) []byte {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "tiny-model.onnx.gz"))
	if err != nil {
		tb.Fatalf("the tiny fixture model: %v", err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustModel(tb testing.TB, b []byte) *onnxpb.ModelProto {
	tb.Helper()
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	return &m
}

func opCounts(m *onnxpb.ModelProto) map[string]int {
	c := map[string]int{}
	for _, n := range m.GetGraph().GetNode() {
		c[n.GetDomain()+":"+n.GetOpType()]++
	}
	return c
}

func TestFuseTinyFixture(t *testing.T) {
	out, err := Fuse(MustTinyModel(t), tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	m := mustModel(t, out)
	want := map[string]int{
		":Cast": 3, "com.microsoft:EmbedLayerNormalization": 1,
		"com.microsoft:Attention": 2, ":MatMul": 6, "com.microsoft:BiasGelu": 2, "com.microsoft:SkipLayerNormalization": 4,
	}
	if diff := cmp.Diff(want, opCounts(m)); diff != "" {
		t.Errorf("fused operators (-want +got):\n%s", diff)
	}
	var ins []string
	for _, in := range m.GetGraph().GetInput() {
		ins = append(ins, in.GetName())
	}
	if diff := cmp.Diff([]string{"input_ids", "attention_mask", "token_type_ids"}, ins); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if outs := m.GetGraph().GetOutput(); len(outs) != 1 || outs[0].GetName() != "last_hidden_state" {
		t.Errorf("outputs: %v", outs)
	}
	// Every node input is a graph input, an initializer or an earlier output.
	known := map[string]bool{"": true}
	for _, in := range m.GetGraph().GetInput() {
		known[in.GetName()] = true
	}
	for _, t := range m.GetGraph().GetInitializer() {
		known[t.GetName()] = true
	}
	for _, n := range m.GetGraph().GetNode() {
		for _, in := range n.GetInput() {
			if !known[in] {
				t.Errorf("%s reads %q, which nothing wrote before it", n.GetName(), in)
			}
		}
		for _, o := range n.GetOutput() {
			known[o] = true
		}
	}
}

// TestFuseMergesQKV checks the merged attention weight's layout: row i is
// the query, key and value weights' row i side by side.
func TestFuseMergesQKV(t *testing.T) {
	src := MustTinyModel(t)
	out, err := Fuse(src, tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	g := newGraph(mustModel(t, src).GetGraph())
	var parts [3][]float32
	for i, name := range []string{"query", "key", "value"} {
		bias, err := g.named("encoder.layer.1.attention.self." + name + ".bias")
		if err != nil {
			t.Fatal(err)
		}
		w, err := g.matmulFeeding(bias)
		if err != nil {
			t.Fatal(err)
		}
		if parts[i], err = floats(w, 32, 32); err != nil {
			t.Fatal(err)
		}
	}
	fg := newGraph(mustModel(t, out).GetGraph())
	merged, err := floats(fg.inits["encoder.layer.1.attention.qkv.weight"], 32, 96)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 32 {
		for j := range 3 {
			if diff := cmp.Diff(parts[j][i*32:(i+1)*32], merged[i*96+j*32:i*96+(j+1)*32]); diff != "" {
				t.Fatalf("row %d, part %d (-want +got):\n%s", i, j, diff)
			}
		}
	}
}

func TestFuseRefuses(t *testing.T) {
	src := MustTinyModel(t)
	rename := func(from, to string) []byte {
		m := mustModel(t, src)
		for _, init := range m.GetGraph().GetInitializer() {
			if init.GetName() == from {
				init.Name = proto.String(to)
			}
		}
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	relu := tinyConfig
	relu.Act = "relu"
	wide := tinyConfig
	wide.Hidden, wide.Heads = 64, 4
	for _, tc := range []struct {
		name  string
		model []byte
		cfg   Config
		want  string
	}{
		{"not onnx", []byte("not a model"), tinyConfig, "not an ONNX model"},
		{"activation", src, relu, `hidden_act "relu"`},
		{"sizes", src, wide, "has shape [30522 32], want [*, 64]"},
		{"bias renamed", rename("encoder.layer.1.output.dense.bias", "something.else"), tinyConfig, "no weight named encoder.layer.1.output.dense.bias"},
		{"layer norm missing", rename("embeddings.LayerNorm.weight", "x"), tinyConfig, "no weight named embeddings.LayerNorm.weight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Fuse(tc.model, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.name != "not onnx" && !errors.Is(err, ErrUnsupported) {
				t.Errorf("error %v does not wrap ErrUnsupported", err)
			}
		})
	}
}

func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "config.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := ReadConfig(write(`{"hidden_size":384,"num_attention_heads":12,"num_hidden_layers":6,"intermediate_size":1536,"layer_norm_eps":1e-12,"hidden_act":"gelu","model_type":"bert","position_embedding_type":"absolute"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hidden != 384 || c.Heads != 12 || c.Layers != 6 || c.Intermediate != 1536 {
		t.Errorf("config %+v", c)
	}
	for _, bad := range []string{`{`, `{"hidden_size":384,"num_attention_heads":5,"num_hidden_layers":6,"intermediate_size":1536,"layer_norm_eps":1e-12,"hidden_act":"gelu"}`, `{"model_type":"roberta"}`} {
		if _, err := ReadConfig(write(bad)); err == nil {
			t.Errorf("ReadConfig(%s) accepted it", bad)
		}
	}
	if _, err := ReadConfig(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("a missing config.json was accepted")
	}
}
