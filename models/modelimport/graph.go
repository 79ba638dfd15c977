package modelimport

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// The graph is the one scripts/gen_bert_onnx.py writes, node for node and
// name for name: standard opset-17 operators only, inputs input_ids,
// attention_mask and token_type_ids (int64 [batch_size, sequence_length]),
// output last_hidden_state (float32 [batch_size, sequence_length, hidden]),
// the parameters as initializers under their Hugging Face names (Linear
// weights stored [in, out] for MatMul), the padding mask applied as
// (1 - mask) * -10000 before the softmax. models/bertfuse rebuilds it with
// fused operators and scripts/ref_forward.py reads its weights by name.
const (
	graphOpset     = 17
	graphIRVersion = 8
	maskValue      = -10000.0
)

// graphBuilder accumulates nodes and initializers; n numbers the nodes as
// the Python builder does ("/MatMul_12", output "/MatMul_12_output_0").
type graphBuilder struct {
	nodes []*onnxpb.NodeProto
	inits []*onnxpb.TensorProto
	n     int
}

func (g *graphBuilder) init(t *onnxpb.TensorProto) string {
	g.inits = append(g.inits, t)
	return t.GetName()
}

// op appends a node; out "" names its output after the node.
func (g *graphBuilder) op(opType string, inputs []string, out string, attrs ...*onnxpb.AttributeProto) string {
	g.n++
	name := fmt.Sprintf("/%s_%d", opType, g.n)
	if out == "" {
		out = name + "_output_0"
	}
	g.nodes = append(g.nodes, &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(opType), Input: inputs, Output: []string{out}, Attribute: attrs})
	return out
}

// buildGraph returns the serialised ONNX model of spec's encoder with the
// given weights (in params order, already in graph layout).
func buildGraph(spec Spec, weights []weight) ([]byte, error) {
	g := &graphBuilder{}
	for _, w := range weights {
		g.init(rawTensor(w.name, onnxpb.TensorProto_FLOAT, w.dims, w.raw))
	}
	headDim := spec.Hidden / spec.Heads
	cOne := g.init(floatScalar("const.one", 1))
	cMask := g.init(floatScalar("const.mask_value", maskValue))
	cSqrtHD := g.init(floatScalar("const.sqrt_head_dim", float32(math.Sqrt(float64(headDim)))))
	cSqrt2 := g.init(floatScalar("const.sqrt2", float32(math.Sqrt2)))
	cHalf := g.init(floatScalar("const.half", 0.5))
	cZero := g.init(int64s("const.zero_1d", 0))
	cMaskAxes := g.init(int64s("const.mask_axes", 1, 2))
	cSplit := g.init(int64s("const.split_heads_shape", 0, 0, int64(spec.Heads), int64(headDim)))
	cMerge := g.init(int64s("const.merge_heads_shape", 0, 0, int64(spec.Hidden)))
	eps := floatAttr("epsilon", float32(spec.LayerNormEps))
	lastAxis := intAttr("axis", -1)

	linear := func(x, prefix string) string {
		return g.op("Add", []string{g.op("MatMul", []string{x, prefix + ".weight"}, ""), prefix + ".bias"}, "")
	}
	layerNorm := func(x, prefix, out string) string {
		return g.op("LayerNormalization", []string{x, prefix + ".weight", prefix + ".bias"}, out, lastAxis, eps)
	}

	// Embeddings: word + token type + position rows 0..seq-1, then LayerNorm.
	seqLen := g.op("Shape", []string{"input_ids"}, "", intAttr("end", 2), intAttr("start", 1))
	pos := g.op("Slice", []string{"embeddings.position_embeddings.weight", cZero, seqLen, cZero}, "")
	words := g.op("Gather", []string{"embeddings.word_embeddings.weight", "input_ids"}, "", intAttr("axis", 0))
	types := g.op("Gather", []string{"embeddings.token_type_embeddings.weight", "token_type_ids"}, "", intAttr("axis", 0))
	sum := g.op("Add", []string{words, types}, "")
	x := g.op("Add", []string{sum, pos}, "")
	x = layerNorm(x, "embeddings.LayerNorm", "")

	// The additive mask [b, 1, 1, seq]: 0 where attended, -10000 where padded.
	unsq := g.op("Unsqueeze", []string{"attention_mask", cMaskAxes}, "")
	m := g.op("Cast", []string{unsq}, "", intAttr("to", int64(onnxpb.TensorProto_FLOAT)))
	mask := g.op("Mul", []string{g.op("Sub", []string{cOne, m}, ""), cMask}, "")

	heads := func(t string, perm ...int64) string {
		return g.op("Transpose", []string{g.op("Reshape", []string{t, cSplit}, "")}, "", intsAttr("perm", perm...))
	}
	for l := range spec.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		q := heads(linear(x, p+"attention.self.query"), 0, 2, 1, 3) // [b, nh, seq, hd]
		k := heads(linear(x, p+"attention.self.key"), 0, 2, 3, 1)   // [b, nh, hd, seq]
		v := heads(linear(x, p+"attention.self.value"), 0, 2, 1, 3) // [b, nh, seq, hd]
		scores := g.op("Div", []string{g.op("MatMul", []string{q, k}, ""), cSqrtHD}, "")
		scores = g.op("Add", []string{scores, mask}, "")
		probs := g.op("Softmax", []string{scores}, "", intAttr("axis", -1))
		ctx := g.op("Transpose", []string{g.op("MatMul", []string{probs, v}, "")}, "", intsAttr("perm", 0, 2, 1, 3))
		ctx = g.op("Reshape", []string{ctx, cMerge}, "")
		attn := linear(ctx, p+"attention.output.dense")
		x = layerNorm(g.op("Add", []string{attn, x}, ""), p+"attention.output.LayerNorm", "")

		inter := linear(x, p+"intermediate.dense")
		// GELU, erf form: x * 0.5 * (1 + erf(x / sqrt(2))).
		erf := g.op("Erf", []string{g.op("Div", []string{inter, cSqrt2}, "")}, "")
		gelu := g.op("Mul", []string{g.op("Mul", []string{inter, g.op("Add", []string{erf, cOne}, "")}, ""), cHalf}, "")
		out := linear(gelu, p+"output.dense")
		name := ""
		if l == spec.Layers-1 {
			name = "last_hidden_state"
		}
		x = layerNorm(g.op("Add", []string{out, x}, ""), p+"output.LayerNorm", name)
	}
	if spec.Layers == 0 {
		g.op("Identity", []string{x}, "last_hidden_state")
	}

	dims := []string{"batch_size", "sequence_length"}
	var inputs []*onnxpb.ValueInfoProto
	for _, name := range []string{"input_ids", "attention_mask", "token_type_ids"} {
		inputs = append(inputs, valueInfo(name, onnxpb.TensorProto_INT64, dims...))
	}
	output := valueInfo("last_hidden_state", onnxpb.TensorProto_FLOAT, dims[0], dims[1], fmt.Sprint(spec.Hidden))
	model := &onnxpb.ModelProto{
		IrVersion:       proto.Int64(graphIRVersion),
		OpsetImport:     []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(graphOpset)}},
		ProducerName:    proto.String("lexsona-modelimport"),
		ProducerVersion: proto.String(GraphVersion),
		Graph: &onnxpb.GraphProto{
			Name:        proto.String("bert"),
			Node:        g.nodes,
			Initializer: g.inits,
			Input:       inputs,
			Output:      []*onnxpb.ValueInfoProto{output},
		},
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(model)
}

func rawTensor(name string, dt onnxpb.TensorProto_DataType, dims []int64, raw []byte) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(dt)), RawData: raw}
}

func floatScalar(name string, v float32) *onnxpb.TensorProto {
	return rawTensor(name, onnxpb.TensorProto_FLOAT, nil, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
}

func int64s(name string, vs ...int64) *onnxpb.TensorProto {
	raw := make([]byte, 0, 8*len(vs))
	for _, v := range vs {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	return rawTensor(name, onnxpb.TensorProto_INT64, []int64{int64(len(vs))}, raw)
}

// valueInfo is a tensor input or output; a dim that parses as a number is
// fixed, any other is a named (dynamic) dim.
func valueInfo(name string, dt onnxpb.TensorProto_DataType, dims ...string) *onnxpb.ValueInfoProto {
	shape := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		var n int64
		if _, err := fmt.Sscan(d, &n); err == nil {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: n}})
		} else {
			shape.Dim = append(shape.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d}})
		}
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(dt)), Shape: shape},
	}}}
}

func intAttr(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func intsAttr(name string, vs ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: vs}
}

func floatAttr(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}
