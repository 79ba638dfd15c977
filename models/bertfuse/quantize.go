package bertfuse

import (
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// QuantizeVersion names the int8 rewrite Quantize performs; a model folder
// records it, and callers that trust an int8 graph only once its quality was
// measured key that trust by it.
const QuantizeVersion = "bertfuse-int8-v2"

// QuantStats says what Quantize did.
type QuantStats struct {
	Attention int   // Attention nodes rewritten as int8 Q, K, V products + MultiHeadAttention
	MatMul    int   // MatMul nodes rewritten as MatMulIntegerToFloat
	Params    int64 // weights stored as int8
}

// Quantize returns an int8 version of a fused graph (Fuse's output): every
// weight matrix of the encoder is stored as int8 with one scale per output
// column (symmetric: q = round(w / s), s = max|w[:, j]| / 127, no zero
// point), and every activation that meets one is quantized on the fly, row
// by row — one scale per token, s = max|x[t, :]| / 127, stored as uint8
// with the fixed zero point 128 (see rowQuant). A token's quantized values
// depend on that token's activations only, so a text's vector does not
// depend on the texts padded into the same batch:
//
//	MatMul(x, W)              →  rowQuant(x) → MatMulIntegerToFloat(xq, Wq, xs, s, 128)
//	Attention(x, W, b, mask)  →  rowQuant(x) → MatMulIntegerToFloat(xq, Wq, xs, s, 128)
//	                             → Split(q, k, v) → MultiHeadAttention(q, k, v, b, mask)
//
// uint8 activations times int8 weights is the pairing ONNX Runtime's x86
// kernels run fastest (VPDPBUSD on AVX-512 VNNI and AVX-VNNI). Embeddings,
// biases and LayerNorm parameters stay float32, as does everything computed
// between the matrix products (softmax, GELU, LayerNorm, the residuals).
//
// Errors wrap ErrUnsupported when the graph has no weight matrix to quantize
// (it is not a fused encoder) or a weight is not a float32 matrix stored in
// the file; other errors say the bytes are not an ONNX model.
func Quantize(fused []byte) ([]byte, QuantStats, error) {
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(fused, &m); err != nil {
		return nil, QuantStats{}, fmt.Errorf("not an ONNX model: %w", err)
	}
	g := m.GetGraph()
	q := &quantizer{src: newGraph(g), done: map[string]bool{}, rows: map[string]rowQuantized{}}
	for _, n := range g.GetNode() {
		if err := q.node(n); err != nil {
			return nil, QuantStats{}, err
		}
	}
	if q.stats.Attention+q.stats.MatMul == 0 {
		return nil, QuantStats{}, fmt.Errorf("%w: no Attention or MatMul with a weight matrix to quantize", ErrUnsupported)
	}
	// Float weights that only fed rewritten nodes are dropped; the rest stay.
	used := map[string]bool{}
	for _, n := range q.nodes {
		for _, in := range n.GetInput() {
			used[in] = true
		}
	}
	var inits []*onnxpb.TensorProto
	for _, t := range g.GetInitializer() {
		if used[t.GetName()] {
			inits = append(inits, t)
		}
	}
	inits = append(inits, q.inits...)
	producer := QuantizeVersion
	out := &onnxpb.ModelProto{
		IrVersion:    proto.Int64(max(m.GetIrVersion(), quantizeIRVersion)),
		ProducerName: &producer,
		OpsetImport:  opsets(m.GetOpsetImport()),
		Graph: &onnxpb.GraphProto{
			Name:        proto.String(g.GetName() + "-int8"),
			Node:        q.nodes,
			Initializer: inits,
			Input:       g.GetInput(),
			Output:      g.GetOutput(),
		},
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(out)
	return b, q.stats, err
}

// opsets is in with the default domain's opset raised to quantizeOpset.
func opsets(in []*onnxpb.OperatorSetIdProto) []*onnxpb.OperatorSetIdProto {
	out := make([]*onnxpb.OperatorSetIdProto, 0, len(in))
	for _, o := range in {
		if o.GetDomain() == "" && o.GetVersion() < quantizeOpset {
			o = &onnxpb.OperatorSetIdProto{Domain: proto.String(""), Version: proto.Int64(quantizeOpset)}
		}
		out = append(out, o)
	}
	return out
}

// quantizer accumulates the int8 graph; done holds the float weights
// quantized already, so a weight shared by two nodes is quantized once, and
// rows maps an activation's name to its row-quantized form, so an activation
// feeding two products is quantized once.
type quantizer struct {
	src   *graph
	nodes []*onnxpb.NodeProto
	inits []*onnxpb.TensorProto
	done  map[string]bool
	rows  map[string]rowQuantized
	stats QuantStats
	// splitQKV names the split sizes of the attention's Q, K, V product.
	splitQKV string
}

// node appends the nodes that replace n (n itself when it is not rewritten).
func (q *quantizer) node(n *onnxpb.NodeProto) error {
	in := n.GetInput()
	switch {
	case n.GetOpType() == "MatMul" && n.GetDomain() == "" && len(in) == 2 && q.src.inits[in[1]] != nil:
		if err := q.product(n.GetName(), in[0], in[1], n.GetOutput()[0]); err != nil {
			return err
		}
		q.stats.MatMul++
		return nil
	case n.GetOpType() == "Attention" && n.GetDomain() == msDomain && len(in) >= 3 && len(in) <= 4 &&
		q.src.inits[in[1]] != nil && q.src.inits[in[2]] != nil:
		return q.attention(n)
	}
	q.nodes = append(q.nodes, n)
	return nil
}

// product appends x·W, W the float32 matrix initializer wName, as an int8
// product with x quantized per row, writing out.
func (q *quantizer) product(name, x, wName, out string) error {
	wq, scale, rows, err := q.weight(wName)
	if err != nil {
		return err
	}
	xq := q.rowQuant(x, rows)
	q.nodes = append(q.nodes, msNode("MatMulIntegerToFloat", name+"/int8", []string{xq.values, wq, xq.scale, scale, zeroPoint128}, []string{out}))
	return nil
}

// attention rewrites Attention(x, W, b, mask) as one int8 product x·W,
// split into its Q, K and V thirds for MultiHeadAttention, which adds b.
func (q *quantizer) attention(n *onnxpb.NodeProto) error {
	in := n.GetInput()
	dims := q.src.inits[in[1]].GetDims()
	if len(dims) != 2 || dims[1]%3 != 0 || !slices.Equal(q.src.inits[in[2]].GetDims(), dims[1:]) {
		return fmt.Errorf("%w: the attention %s has a weight of shape %v and a bias of shape %v", ErrUnsupported, n.GetName(), dims, q.src.inits[in[2]].GetDims())
	}
	name := n.GetName()
	if err := q.product(name+"/qkv", in[0], in[1], name+"/qkv"); err != nil {
		return err
	}
	qkv := []string{name + "/query", name + "/key", name + "/value"}
	if q.splitQKV == "" {
		q.splitQKV = "int8/qkv_split"
		third := dims[1] / 3
		q.inits = append(q.inits, int64Tensor(q.splitQKV, third, third, third))
	}
	q.nodes = append(q.nodes, &onnxpb.NodeProto{Name: proto.String(name + "/split"), OpType: proto.String("Split"), Domain: proto.String(""),
		Input: []string{name + "/qkv", q.splitQKV}, Output: qkv, Attribute: []*onnxpb.AttributeProto{intAttr("axis", -1)}})
	inputs := append(qkv, in[2])
	if len(in) == 4 {
		inputs = append(inputs, in[3])
	}
	mha := msNode("MultiHeadAttention", name+"/mha", inputs, n.GetOutput())
	mha.Attribute = n.GetAttribute()
	q.nodes = append(q.nodes, mha)
	q.stats.Attention++
	return nil
}

// weight quantizes the float32 matrix initializer name per column and
// returns the names of the int8 matrix and of its scales, and its rows.
func (q *quantizer) weight(name string) (wq, scale string, rows int64, err error) {
	t := q.src.inits[name]
	dims := t.GetDims()
	if len(dims) != 2 || dims[0] <= 0 || dims[1] <= 0 {
		return "", "", 0, fmt.Errorf("%w: the weight %s has shape %v, not a matrix", ErrUnsupported, name, dims)
	}
	wq, scale = name+"_int8", name+"_int8_scale"
	if q.done[name] {
		return wq, scale, dims[0], nil
	}
	w, err := floats(t, dims...)
	if err != nil {
		return "", "", 0, err
	}
	data, scales := QuantizeColumns(w, int(dims[0]), int(dims[1]))
	raw := make([]byte, len(data))
	for i, v := range data {
		raw[i] = byte(v)
	}
	i8 := int32(onnxpb.TensorProto_INT8)
	q.inits = append(q.inits,
		&onnxpb.TensorProto{Name: proto.String(wq), Dims: dims, DataType: &i8, RawData: raw},
		tensor(scale, scales, dims[1]))
	q.done[name] = true
	q.stats.Params += int64(len(data))
	return wq, scale, dims[0], nil
}

// QuantizeColumns quantizes the row-major [rows, cols] matrix w column by
// column, symmetrically: scales[j] = max_i |w[i, j]| / 127 (1 for an all-zero
// column) and q[i, j] = round(w[i, j] / scales[j]), ties to even, in
// [-127, 127]. q[i, j] * scales[j] is within scales[j] / 2 of w[i, j].
func QuantizeColumns(w []float32, rows, cols int) (q []int8, scales []float32) {
	scales = make([]float32, cols)
	for i := range rows {
		for j, v := range w[i*cols : (i+1)*cols] {
			scales[j] = max(scales[j], float32(math.Abs(float64(v))))
		}
	}
	for j, m := range scales {
		if scales[j] = m / 127; !(scales[j] > 0) || math.IsInf(float64(scales[j]), 0) {
			scales[j] = 1
		}
	}
	q = make([]int8, rows*cols)
	for i := range rows {
		for j, v := range w[i*cols : (i+1)*cols] {
			r := math.RoundToEven(float64(v / scales[j]))
			q[i*cols+j] = int8(max(-127, min(127, r)))
		}
	}
	return q, scales
}

// msNode is a com.microsoft node.
func msNode(opType, name string, inputs, outputs []string) *onnxpb.NodeProto {
	for len(inputs) > 0 && inputs[len(inputs)-1] == "" {
		inputs = inputs[:len(inputs)-1]
	}
	return &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(opType), Domain: proto.String(msDomain), Input: inputs, Output: outputs}
}

// plainNode is a node of the default ONNX domain with one output.
func plainNode(opType, name string, inputs []string, output string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{Name: proto.String(name), OpType: proto.String(opType), Domain: proto.String(""), Input: inputs, Output: []string{output}, Attribute: attrs}
}
