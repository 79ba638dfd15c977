package bertfuse

import (
	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// rowQuantized names the per-row quantized form of an activation: values
// (uint8, zero point 128) and scale (float32, one per row, keeping its last
// axis as 1), with values[t, k] ≈ 128 + 127 · x[t, k] / scale[t].
type rowQuantized struct {
	values, scale string
}

// The names of the graph-wide values rowQuant uses.
const (
	rowStep      = "int8/step"              // float32 scalar 1/127
	rowAxes      = "int8/last_axis"         // int64 [-1]
	rowZeroPoint = "int8/zero_point"        // uint8, 128 in every row: made at run time (rowQuant)
	zeroPoint128 = "int8/zero_point_scalar" // uint8 scalar 128, the products' A zero point
)

// quantizeOpset is the default-domain opset of Quantize's graphs: blocked
// QuantizeLinear (one scale per block of a row) came with opset 21, which
// needs IR version 10.
const (
	quantizeOpset     = 21
	quantizeIRVersion = 10
)

// rowQuant appends the nodes that quantize activation x ([batch, sequence,
// k] float32) row by row and returns their outputs; x is quantized once
// however many products read it:
//
//	scale  = ReduceMax(|x|, last axis) / 127           [batch, sequence, 1]
//	values = QuantizeLinear(x, scale, 128), one block a row   [batch, sequence, k] uint8
//
// Symmetric per-row quantization with a fixed zero point is what ONNX
// Runtime's MatMulIntegerToFloat takes with one scale per row (its A zero
// point must be one scalar). A blocked QuantizeLinear wants its zero point
// in the scale's shape, so the first call also makes that tensor of 128s,
// which every activation shares (they all have one row per token). An
// all-zero row has scale 0: its quantized values are whatever QuantizeLinear
// makes of 0/0, and the product multiplies them by 0 again.
func (q *quantizer) rowQuant(x string, k int64) rowQuantized {
	if r, ok := q.rows[x]; ok {
		return r
	}
	r := rowQuantized{values: x + "/row_uint8", scale: x + "/row_scale"}
	if len(q.rows) == 0 {
		u8 := int32(onnxpb.TensorProto_UINT8)
		q.inits = append(q.inits, tensor(rowStep, []float32{1.0 / 127}), int64Tensor(rowAxes, -1),
			&onnxpb.TensorProto{Name: proto.String(zeroPoint128), DataType: &u8, RawData: []byte{128}})
	}
	q.nodes = append(q.nodes,
		plainNode("Abs", x+"/row_abs", []string{x}, x+"/abs"),
		plainNode("ReduceMax", x+"/row_max", []string{x + "/abs", rowAxes}, x+"/row_max", intAttr("keepdims", 1)),
		plainNode("Mul", x+"/row_scale", []string{x + "/row_max", rowStep}, r.scale))
	if len(q.rows) == 0 {
		u8 := int32(onnxpb.TensorProto_UINT8)
		fill := &onnxpb.TensorProto{Name: proto.String("value"), Dims: []int64{1}, DataType: &u8, RawData: []byte{128}}
		t := onnxpb.AttributeProto_TENSOR
		q.nodes = append(q.nodes,
			plainNode("Shape", "int8/row_shape", []string{r.scale}, "int8/row_shape"),
			plainNode("ConstantOfShape", "int8/zero_points", []string{"int8/row_shape"}, rowZeroPoint,
				&onnxpb.AttributeProto{Name: proto.String("value"), Type: &t, T: fill}))
	}
	q.nodes = append(q.nodes,
		plainNode("QuantizeLinear", x+"/row_quantize", []string{x, r.scale, rowZeroPoint}, r.values, intAttr("axis", 2), intAttr("block_size", k)))
	q.rows[x] = r
	return r
}

// int64Tensor is a 1-D int64 initializer.
func int64Tensor(name string, v ...int64) *onnxpb.TensorProto {
	dt := int32(onnxpb.TensorProto_INT64)
	return &onnxpb.TensorProto{Name: &name, Dims: []int64{int64(len(v))}, DataType: &dt, Int64Data: v}
}
