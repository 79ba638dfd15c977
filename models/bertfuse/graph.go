package bertfuse

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// graph indexes a source graph: initializers by name, and the nodes that
// consume each value.
type graph struct {
	g         *onnxpb.GraphProto
	inits     map[string]*onnxpb.TensorProto
	producer  map[string]*onnxpb.NodeProto
	consumers map[string][]*onnxpb.NodeProto
}

func newGraph(g *onnxpb.GraphProto) *graph {
	x := &graph{g: g, inits: map[string]*onnxpb.TensorProto{}, producer: map[string]*onnxpb.NodeProto{}, consumers: map[string][]*onnxpb.NodeProto{}}
	for _, t := range g.GetInitializer() {
		x.inits[t.GetName()] = t
	}
	for _, n := range g.GetNode() {
		for _, o := range n.GetOutput() {
			x.producer[o] = n
		}
		for _, in := range n.GetInput() {
			x.consumers[in] = append(x.consumers[in], n)
		}
	}
	return x
}

// named returns the one initializer whose name is suffix or ends in
// "." + suffix (exports may prefix every parameter, e.g. "bert.").
func (x *graph) named(suffix string) (*onnxpb.TensorProto, error) {
	var found []*onnxpb.TensorProto
	for name, t := range x.inits {
		if name == suffix || strings.HasSuffix(name, "."+suffix) {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("%w: no weight named %s", ErrUnsupported, suffix)
	}
	return nil, fmt.Errorf("%w: %d weights named %s", ErrUnsupported, len(found), suffix)
}

// matmulFeeding returns the [in, out] weight of the MatMul whose output is
// added to the bias initializer (Add(MatMul(x, W), bias), in either order).
func (x *graph) matmulFeeding(bias *onnxpb.TensorProto) (*onnxpb.TensorProto, error) {
	for _, add := range x.consumers[bias.GetName()] {
		if add.GetOpType() != "Add" || len(add.GetInput()) != 2 {
			continue
		}
		other := add.GetInput()[0]
		if other == bias.GetName() {
			other = add.GetInput()[1]
		}
		mm := x.producer[other]
		if mm == nil || mm.GetOpType() != "MatMul" || len(mm.GetInput()) != 2 {
			continue
		}
		if w, ok := x.inits[mm.GetInput()[1]]; ok {
			return w, nil
		}
	}
	return nil, fmt.Errorf("%w: no MatMul feeds the bias %s", ErrUnsupported, bias.GetName())
}

// floats returns a float32 tensor's values, checking its shape against dims.
func floats(t *onnxpb.TensorProto, dims ...int64) ([]float32, error) {
	if !slices.Equal(t.GetDims(), dims) {
		return nil, fmt.Errorf("%w: %s has shape %v, want %v", ErrUnsupported, t.GetName(), t.GetDims(), dims)
	}
	if t.GetDataType() != int32(onnxpb.TensorProto_FLOAT) {
		return nil, fmt.Errorf("%w: %s is not float32", ErrUnsupported, t.GetName())
	}
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		return nil, fmt.Errorf("%w: %s is stored outside the model file", ErrUnsupported, t.GetName())
	}
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if fd := t.GetFloatData(); len(fd) > 0 {
		if int64(len(fd)) != n {
			return nil, fmt.Errorf("%w: %s holds %d values, want %d", ErrUnsupported, t.GetName(), len(fd), n)
		}
		return fd, nil
	}
	raw := t.GetRawData()
	if int64(len(raw)) != 4*n {
		return nil, fmt.Errorf("%w: %s holds %d bytes, want %d", ErrUnsupported, t.GetName(), len(raw), 4*n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out, nil
}

// tensor is a float32 initializer of the fused graph.
func tensor(name string, data []float32, dims ...int64) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	dt := int32(onnxpb.TensorProto_FLOAT)
	return &onnxpb.TensorProto{Name: &name, Dims: dims, DataType: &dt, RawData: raw}
}
