package bertfuse

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// Version names this rewrite; callers that cache fused graphs key them by it.
const Version = "bertfuse-v1"

const msDomain = "com.microsoft"

// Fuse returns the fused graph of model (the bytes of a model.onnx) as the
// bytes of a new model: same inputs (input_ids, attention_mask and, if the
// source has it, token_type_ids), one output of the source's last_hidden_state
// name and shape. Errors wrap ErrUnsupported when the model is not a BERT
// encoder Fuse can rebuild (naming what is missing), or say that the bytes
// are not an ONNX model.
func Fuse(model []byte, cfg Config) ([]byte, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(model, &m); err != nil {
		return nil, fmt.Errorf("not an ONNX model: %w", err)
	}
	src := newGraph(m.GetGraph())
	b := &builder{cfg: cfg, src: src}
	if err := b.io(); err != nil {
		return nil, err
	}
	x, err := b.embeddings()
	if err != nil {
		return nil, err
	}
	for l := range cfg.Layers {
		if x, err = b.layer(l, x); err != nil {
			return nil, err
		}
	}
	// The last SkipLayerNormalization writes the output under its own name.
	b.nodes[len(b.nodes)-1].Output[0] = b.output.GetName()
	ir, opset := int64(8), int64(17)
	msVersion := int64(1)
	empty, ms := "", msDomain
	producer := Version
	out := &onnxpb.ModelProto{
		IrVersion:    &ir,
		ProducerName: &producer,
		OpsetImport:  []*onnxpb.OperatorSetIdProto{{Domain: &empty, Version: &opset}, {Domain: &ms, Version: &msVersion}},
		Graph: &onnxpb.GraphProto{
			Name:        proto.String("bert-fused"),
			Node:        b.nodes,
			Initializer: b.inits,
			Input:       b.inputs,
			Output:      []*onnxpb.ValueInfoProto{b.output},
		},
	}
	return proto.Marshal(out)
}

// builder accumulates the fused graph.
type builder struct {
	cfg            Config
	src            *graph
	nodes          []*onnxpb.NodeProto
	inits          []*onnxpb.TensorProto
	inputs         []*onnxpb.ValueInfoProto
	output         *onnxpb.ValueInfoProto
	ids, seg, mask string // int32 casts of the inputs ("" when absent)
}

// io checks the source's inputs and output and casts the int64 inputs to the
// int32 the contrib operators take.
func (b *builder) io() error {
	have := map[string]*onnxpb.ValueInfoProto{}
	for _, in := range b.src.g.GetInput() {
		if _, isInit := b.src.inits[in.GetName()]; !isInit {
			have[in.GetName()] = in
		}
	}
	for name := range have {
		if !slices.Contains([]string{"input_ids", "attention_mask", "token_type_ids"}, name) {
			return fmt.Errorf("%w: input %q is not a BERT input", ErrUnsupported, name)
		}
	}
	for _, name := range []string{"input_ids", "attention_mask", "token_type_ids"} {
		in, ok := have[name]
		if !ok {
			if name == "input_ids" {
				return fmt.Errorf("%w: no input_ids input", ErrUnsupported)
			}
			continue
		}
		b.inputs = append(b.inputs, in)
		cast := b.op("Cast", "", []string{name}, name+"_int32", intAttr("to", int64(onnxpb.TensorProto_INT32)))
		switch name {
		case "input_ids":
			b.ids = cast
		case "attention_mask":
			b.mask = cast
		default:
			b.seg = cast
		}
	}
	for _, o := range b.src.g.GetOutput() {
		if o.GetName() == "last_hidden_state" || (b.output == nil && len(o.GetType().GetTensorType().GetShape().GetDim()) == 3) {
			b.output = o
		}
	}
	if b.output == nil {
		return fmt.Errorf("%w: no last_hidden_state output", ErrUnsupported)
	}
	return nil
}

// embeddings: word + position + token type embeddings, LayerNorm.
func (b *builder) embeddings() (string, error) {
	h := int64(b.cfg.Hidden)
	ins := []string{b.ids, b.seg}
	var dims [3][]int64
	for i, name := range []string{"word_embeddings", "position_embeddings", "token_type_embeddings"} {
		t, err := b.src.named("embeddings." + name + ".weight")
		if err != nil {
			if name == "token_type_embeddings" && b.seg == "" {
				ins = append(ins, "")
				continue
			}
			return "", err
		}
		if d := t.GetDims(); len(d) != 2 || d[1] != h {
			return "", fmt.Errorf("%w: %s has shape %v, want [*, %d]", ErrUnsupported, t.GetName(), d, h)
		}
		dims[i] = t.GetDims()
		ins = append(ins, b.keep(t))
	}
	if b.seg != "" && dims[2] == nil {
		return "", fmt.Errorf("%w: token_type_ids input but no token_type_embeddings", ErrUnsupported)
	}
	g, beta, err := b.layerNorm("embeddings.LayerNorm")
	if err != nil {
		return "", err
	}
	ins = append(ins, g, beta)
	if b.seg == "" {
		ins[1] = ""
	}
	x := b.op("EmbedLayerNormalization", msDomain, ins, "embeddings", floatAttr("epsilon", float32(b.cfg.Eps)))
	// Its second output, mask_index, is required by older runtimes' schema.
	last := b.nodes[len(b.nodes)-1]
	last.Output = append(last.Output, "embeddings_mask_index")
	return x, nil
}

// layer is one encoder layer: Attention (Q, K and V in one weight),
// output dense + residual + LayerNorm, intermediate dense + GELU, output
// dense + residual + LayerNorm.
func (b *builder) layer(l int, x string) (string, error) {
	h, in := int64(b.cfg.Hidden), int64(b.cfg.Intermediate)
	p := fmt.Sprintf("encoder.layer.%d.", l)
	var qkv [3][]float32
	var qkvB []float32
	for i, name := range []string{"query", "key", "value"} {
		w, bias, err := b.dense(p+"attention.self."+name, h, h)
		if err != nil {
			return "", err
		}
		qkv[i], qkvB = w, append(qkvB, bias...)
	}
	// Attention wants one [h, 3h] weight: row i is Wq's, Wk's and Wv's row i.
	merged := make([]float32, 0, 3*h*h)
	for i := range h {
		for _, w := range qkv {
			merged = append(merged, w[i*h:(i+1)*h]...)
		}
	}
	wName, bName := p+"attention.qkv.weight", p+"attention.qkv.bias"
	b.inits = append(b.inits, tensor(wName, merged, h, 3*h), tensor(bName, qkvB, 3*h))
	att := b.op("Attention", msDomain, []string{x, wName, bName, b.mask}, p+"attention", intAttr("num_heads", int64(b.cfg.Heads)))

	x, err := b.denseSkipLN(att, x, p+"attention.output.dense", p+"attention.output.LayerNorm", h, h)
	if err != nil {
		return "", err
	}
	wI, bI, err := b.denseNames(p+"intermediate.dense", h, in)
	if err != nil {
		return "", err
	}
	inter := b.op("MatMul", "", []string{x, wI}, p+"intermediate")
	gelu := b.op("BiasGelu", msDomain, []string{inter, bI}, p+"gelu")
	return b.denseSkipLN(gelu, x, p+"output.dense", p+"output.LayerNorm", in, h)
}

// denseSkipLN is LayerNorm(in·W + bias + skip) in one MatMul and one
// SkipLayerNormalization.
func (b *builder) denseSkipLN(in, skip, dense, ln string, rows, cols int64) (string, error) {
	w, bias, err := b.denseNames(dense, rows, cols)
	if err != nil {
		return "", err
	}
	g, beta, err := b.layerNorm(ln)
	if err != nil {
		return "", err
	}
	y := b.op("MatMul", "", []string{in, w}, dense)
	return b.op("SkipLayerNormalization", msDomain, []string{y, skip, g, beta, bias}, ln, floatAttr("epsilon", float32(b.cfg.Eps))), nil
}

// dense returns the values of a linear layer's [rows, cols] weight and bias.
func (b *builder) dense(prefix string, rows, cols int64) (w, bias []float32, err error) {
	bt, wt, err := b.denseTensors(prefix)
	if err != nil {
		return nil, nil, err
	}
	if w, err = floats(wt, rows, cols); err != nil {
		return nil, nil, err
	}
	bias, err = floats(bt, cols)
	return w, bias, err
}

// denseNames keeps a linear layer's weight and bias as they are.
func (b *builder) denseNames(prefix string, rows, cols int64) (w, bias string, err error) {
	bt, wt, err := b.denseTensors(prefix)
	if err != nil {
		return "", "", err
	}
	if !slices.Equal(wt.GetDims(), []int64{rows, cols}) || !slices.Equal(bt.GetDims(), []int64{cols}) {
		return "", "", fmt.Errorf("%w: %s weight %v and bias %v, want [%d %d] and [%d]", ErrUnsupported, prefix, wt.GetDims(), bt.GetDims(), rows, cols, cols)
	}
	return b.keep(wt), b.keep(bt), nil
}

func (b *builder) denseTensors(prefix string) (bias, w *onnxpb.TensorProto, err error) {
	if bias, err = b.src.named(prefix + ".bias"); err != nil {
		return nil, nil, err
	}
	w, err = b.src.matmulFeeding(bias)
	return bias, w, err
}

func (b *builder) layerNorm(prefix string) (gamma, beta string, err error) {
	for i, part := range []string{".weight", ".bias"} {
		t, err := b.src.named(prefix + part)
		if err != nil {
			return "", "", err
		}
		if !slices.Equal(t.GetDims(), []int64{int64(b.cfg.Hidden)}) {
			return "", "", fmt.Errorf("%w: %s has shape %v, want [%d]", ErrUnsupported, t.GetName(), t.GetDims(), b.cfg.Hidden)
		}
		if i == 0 {
			gamma = b.keep(t)
		} else {
			beta = b.keep(t)
		}
	}
	return gamma, beta, nil
}

// keep adds a source initializer to the fused graph unchanged (once).
func (b *builder) keep(t *onnxpb.TensorProto) string {
	if !slices.Contains(b.inits, t) {
		b.inits = append(b.inits, t)
	}
	return t.GetName()
}

// op appends a node and returns its output's name.
func (b *builder) op(opType, domain string, inputs []string, out string, attrs ...*onnxpb.AttributeProto) string {
	// Trailing optional inputs are left out rather than passed as "".
	for len(inputs) > 0 && inputs[len(inputs)-1] == "" {
		inputs = inputs[:len(inputs)-1]
	}
	name := "/fused/" + out
	b.nodes = append(b.nodes, &onnxpb.NodeProto{Name: &name, OpType: &opType, Domain: &domain, Input: inputs, Output: []string{out}, Attribute: attrs})
	return out
}

func intAttr(name string, v int64) *onnxpb.AttributeProto {
	t := onnxpb.AttributeProto_INT
	return &onnxpb.AttributeProto{Name: &name, Type: &t, I: &v}
}

func floatAttr(name string, v float32) *onnxpb.AttributeProto {
	t := onnxpb.AttributeProto_FLOAT
	return &onnxpb.AttributeProto{Name: &name, Type: &t, F: &v}
}
