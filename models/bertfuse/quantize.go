package bertfuse

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// QuantizeVersion names the int8 rewrite Quantize performs; a model folder
// records it, and callers that trust an int8 graph only once its quality was
// measured key that trust by it.
const QuantizeVersion = "bertfuse-int8-v1"

// QuantStats says what Quantize did.
type QuantStats struct {
	Attention int   // Attention nodes rewritten as DynamicQuantizeLinear + QAttention
	MatMul    int   // MatMul nodes rewritten as DynamicQuantizeMatMul
	Params    int64 // weights stored as int8
}

// Quantize returns an int8 version of a fused graph (Fuse's output): every
// weight matrix of the encoder is stored as int8 with one scale per output
// column (symmetric: q = round(w / s), s = max|w[:, j]| / 127, no zero
// point), and the activations that meet it are quantized to uint8 on the
// fly, per tensor, by ONNX Runtime — dynamic quantization:
//
//	Attention(x, W, b, mask)  →  DynamicQuantizeLinear(x) → QAttention(xq, Wq, b, xs, s, mask, xz)
//	MatMul(x, W)              →  DynamicQuantizeMatMul(x, Wq, s)
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
	src := newGraph(g)
	q := &quantizer{src: src, done: map[string]string{}}
	var nodes []*onnxpb.NodeProto
	for _, n := range g.GetNode() {
		out, err := q.node(n)
		if err != nil {
			return nil, QuantStats{}, err
		}
		nodes = append(nodes, out...)
	}
	if q.stats.Attention+q.stats.MatMul == 0 {
		return nil, QuantStats{}, fmt.Errorf("%w: no Attention or MatMul with a weight matrix to quantize", ErrUnsupported)
	}
	// Float weights that only fed rewritten nodes are dropped; the rest stay.
	used := map[string]bool{}
	for _, n := range nodes {
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
		IrVersion:    m.IrVersion,
		ProducerName: &producer,
		OpsetImport:  m.GetOpsetImport(),
		Graph: &onnxpb.GraphProto{
			Name:        proto.String(g.GetName() + "-int8"),
			Node:        nodes,
			Initializer: inits,
			Input:       g.GetInput(),
			Output:      g.GetOutput(),
		},
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(out)
	return b, q.stats, err
}

// quantizer accumulates the int8 weights; done maps a float weight's name to
// its int8 tensor's, so a weight shared by two nodes is quantized once.
type quantizer struct {
	src   *graph
	inits []*onnxpb.TensorProto
	done  map[string]string
	stats QuantStats
}

// node returns the nodes that replace n (n itself when it is not rewritten).
func (q *quantizer) node(n *onnxpb.NodeProto) ([]*onnxpb.NodeProto, error) {
	in := n.GetInput()
	switch {
	case n.GetOpType() == "MatMul" && n.GetDomain() == "" && len(in) == 2 && q.src.inits[in[1]] != nil:
		wq, scale, err := q.weight(in[1])
		if err != nil {
			return nil, err
		}
		q.stats.MatMul++
		return []*onnxpb.NodeProto{msNode("DynamicQuantizeMatMul", n.GetName()+"/int8", []string{in[0], wq, scale}, n.GetOutput())}, nil
	case n.GetOpType() == "Attention" && n.GetDomain() == msDomain && len(in) >= 3 && len(in) <= 4 && q.src.inits[in[1]] != nil:
		wq, scale, err := q.weight(in[1])
		if err != nil {
			return nil, err
		}
		x := in[0]
		xq, xs, xz := x+"/uint8", x+"/uint8_scale", x+"/uint8_zero_point"
		dql := &onnxpb.NodeProto{Name: proto.String(n.GetName() + "/quantize_input"), OpType: proto.String("DynamicQuantizeLinear"),
			Domain: proto.String(""), Input: []string{x}, Output: []string{xq, xs, xz}}
		mask := ""
		if len(in) == 4 {
			mask = in[3]
		}
		qa := msNode("QAttention", n.GetName()+"/int8", []string{xq, wq, in[2], xs, scale, mask, xz}, n.GetOutput())
		qa.Attribute = n.GetAttribute()
		q.stats.Attention++
		return []*onnxpb.NodeProto{dql, qa}, nil
	}
	return []*onnxpb.NodeProto{n}, nil
}

// weight quantizes the [rows, cols] float32 initializer name per column and
// returns the names of the int8 matrix and of its [cols] scales.
func (q *quantizer) weight(name string) (wq, scale string, err error) {
	if wq, ok := q.done[name]; ok {
		return wq, wq + "_scale", nil
	}
	t := q.src.inits[name]
	dims := t.GetDims()
	if len(dims) != 2 || dims[0] <= 0 || dims[1] <= 0 {
		return "", "", fmt.Errorf("%w: the weight %s has shape %v, not a matrix", ErrUnsupported, name, dims)
	}
	w, err := floats(t, dims...)
	if err != nil {
		return "", "", err
	}
	data, scales := QuantizeColumns(w, int(dims[0]), int(dims[1]))
	wq, scale = name+"_int8", name+"_int8_scale"
	raw := make([]byte, len(data))
	for i, v := range data {
		raw[i] = byte(v)
	}
	i8 := int32(onnxpb.TensorProto_INT8)
	q.inits = append(q.inits,
		&onnxpb.TensorProto{Name: proto.String(wq), Dims: dims, DataType: &i8, RawData: raw},
		tensor(scale, scales, dims[1]))
	q.done[name] = wq
	q.stats.Params += int64(len(data))
	return wq, scale, nil
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
