package bertfuse

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

func mustQuantizedTiny(t *testing.T) ([]byte, []byte, QuantStats) {
	t.Helper()
	fused, err := Fuse(MustTinyModel(t), tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	q8, st, err := Quantize(fused)
	if err != nil {
		t.Fatal(err)
	}
	return fused, q8, st
}

func TestQuantizeTinyFixture(t *testing.T) {
	_, q8, st := mustQuantizedTiny(t)
	// 2 layers: QKV 32×96, output 32×32, intermediate 32×64, output 64×32.
	if want := (QuantStats{Attention: 2, MatMul: 6, Params: 2 * (32*96 + 32*32 + 32*64 + 64*32)}); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	m := mustModel(t, q8)
	// Per layer 4 activations quantized row by row (Abs, ReduceMax, Mul,
	// QuantizeLinear) for 4 products; one zero-point tensor for the graph.
	want := map[string]int{
		":Cast": 3, "com.microsoft:EmbedLayerNormalization": 1,
		":Abs": 8, ":ReduceMax": 8, ":Mul": 8, ":QuantizeLinear": 8, ":Shape": 1, ":ConstantOfShape": 1,
		"com.microsoft:MatMulIntegerToFloat": 8, ":Split": 2, "com.microsoft:MultiHeadAttention": 2,
		"com.microsoft:BiasGelu": 2, "com.microsoft:SkipLayerNormalization": 4,
	}
	if diff := cmp.Diff(want, opCounts(m)); diff != "" {
		t.Errorf("operators (-want +got):\n%s", diff)
	}
	if m.GetProducerName() != QuantizeVersion {
		t.Errorf("producer %q", m.GetProducerName())
	}
	for _, o := range m.GetOpsetImport() {
		if o.GetDomain() == "" && o.GetVersion() != quantizeOpset {
			t.Errorf("default opset %d, want %d (blocked QuantizeLinear)", o.GetVersion(), quantizeOpset)
		}
	}
	// Every weight matrix is int8; no float32 matrix is left behind.
	known := map[string]bool{"": true}
	for _, in := range m.GetGraph().GetInput() {
		known[in.GetName()] = true
	}
	for _, init := range m.GetGraph().GetInitializer() {
		known[init.GetName()] = true
		if len(init.GetDims()) == 2 && init.GetDataType() == int32(onnxpb.TensorProto_FLOAT) && !strings.HasPrefix(init.GetName(), "embeddings.") {
			t.Errorf("float32 matrix %s %v left in the graph", init.GetName(), init.GetDims())
		}
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

// Each stored int8 value times its column's scale is within half a scale
// step of the float32 weight it replaces.
func TestQuantizeWeightsRoundTrip(t *testing.T) {
	fused, q8, _ := mustQuantizedTiny(t)
	src, dst := newGraph(mustModel(t, fused).GetGraph()), newGraph(mustModel(t, q8).GetGraph())
	for _, name := range []string{"encoder.layer.1.attention.qkv.weight", "encoder.layer.0.output.dense.weight"} {
		w := src.inits[name]
		rows, cols := w.GetDims()[0], w.GetDims()[1]
		want, err := floats(w, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		q, s := dst.inits[name+"_int8"], dst.inits[name+"_int8_scale"]
		if q == nil || s == nil || q.GetDataType() != int32(onnxpb.TensorProto_INT8) {
			t.Fatalf("%s: int8 weight %v, scale %v", name, q, s)
		}
		scales, err := floats(s, cols)
		if err != nil {
			t.Fatal(err)
		}
		raw := q.GetRawData()
		for i := range rows {
			for j := range cols {
				got := float64(int8(raw[i*cols+j])) * float64(scales[j])
				if d := math.Abs(got - float64(want[i*cols+j])); d > float64(scales[j])/2*(1+1e-6) {
					t.Fatalf("%s[%d,%d]: %g from int8, %g float32, more than half a step (%g) apart", name, i, j, got, want[i*cols+j], scales[j]/2)
				}
			}
		}
	}
}

func TestQuantizeColumns(t *testing.T) {
	for _, tc := range []struct {
		name       string
		w          []float32 // 2 rows × 2 columns
		wantQ      []int8
		wantScales []float32
	}{
		{"largest magnitude is ±127", []float32{1.27, -0.5, -0.635, 2}, []int8{127, -32, -64, 127}, []float32{0.01, 2.0 / 127}},
		{"an all-zero column has scale 1", []float32{0, 1, 0, -1}, []int8{0, 127, 0, -127}, []float32{1, 1.0 / 127}},
		{"halves round to even", []float32{0.5, 1.5, 127, 127}, []int8{0, 2, 127, 127}, []float32{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, s := QuantizeColumns(tc.w, 2, 2)
			if diff := cmp.Diff(tc.wantQ, q); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			for j := range s {
				if math.Abs(float64(s[j]-tc.wantScales[j])) > 1e-7 {
					t.Errorf("scale %d: %g, want %g", j, s[j], tc.wantScales[j])
				}
			}
		})
	}
}

func TestQuantizeRefuses(t *testing.T) {
	plain, err := proto.Marshal(&onnxpb.ModelProto{Graph: &onnxpb.GraphProto{Node: []*onnxpb.NodeProto{
		{OpType: proto.String("Add"), Input: []string{"a", "b"}, Output: []string{"c"}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Quantize([]byte("not a model")); err == nil || !strings.Contains(err.Error(), "not an ONNX model") {
		t.Errorf("garbage: %v", err)
	}
	if _, _, err := Quantize(plain); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "no Attention or MatMul") {
		t.Errorf("a graph without weights: %v", err)
	}
}
