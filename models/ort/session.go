package ort

import (
	"context"
	"fmt"
	"slices"

	onnxrt "github.com/yalue/onnxruntime_go"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// pickORTNames chooses a model's BERT inputs and its token-embeddings output.
func pickORTNames(model string, ins, outs []onnxrt.InputOutputInfo) ([]string, string, error) {
	var inputs []string
	for _, in := range ins {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			inputs = append(inputs, in.Name)
		default:
			return nil, "", engine.Errorf(engine.EUNAVAILABLE, "the model %s has an input %q a BERT sentence encoder does not have: use all-MiniLM-L6-v2's onnx/model.onnx", model, in.Name)
		}
	}
	if !slices.Contains(inputs, "input_ids") {
		return nil, "", engine.Errorf(engine.EUNAVAILABLE, "the model %s has no input_ids input: use all-MiniLM-L6-v2's onnx/model.onnx", model)
	}
	output := ""
	for _, o := range outs {
		if o.Name == "last_hidden_state" || (output == "" && len(o.Dimensions) == 3) {
			output = o.Name
		}
	}
	if output == "" {
		return nil, "", engine.Errorf(engine.EUNAVAILABLE, "the model %s has no last_hidden_state output: use all-MiniLM-L6-v2's onnx/model.onnx", model)
	}
	return inputs, output, nil
}

// graph is one ONNX Runtime session over a model's graph: the models.Graph
// the ort backend's pipeline runs.
type graph struct {
	sess   *onnxrt.DynamicAdvancedSession
	inputs []string // the model's inputs, in the order tensors are passed
	// dims is the output's width once the probe found it: the output tensor
	// is then allocated here; 0 lets ONNX Runtime allocate it.
	dims int
}

// Forward runs the session on one padded batch and returns
// last_hidden_state, row-major [Size][SeqLen][dim], and dim. Cancelling ctx
// terminates the run (an EUNAVAILABLE error).
func (g *graph) Forward(ctx context.Context, b models.Batch) ([]float32, int, error) {
	shape := onnxrt.NewShape(int64(b.Size), int64(b.SeqLen))
	values := make([]onnxrt.Value, len(g.inputs))
	defer func() {
		for _, v := range values {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, name := range g.inputs {
		data := b.InputIDs
		switch name {
		case "attention_mask":
			data = b.AttentionMask
		case "token_type_ids":
			data = b.TokenTypeIDs
		}
		t, err := onnxrt.NewTensor(shape, data)
		if err != nil {
			return nil, 0, fmt.Errorf("onnxruntime input %s: %w", name, err)
		}
		values[i] = t
	}
	var out onnxrt.Value
	if d := g.dims; d > 0 {
		t, err := onnxrt.NewEmptyTensor[float32](onnxrt.NewShape(int64(b.Size), int64(b.SeqLen), int64(d)))
		if err != nil {
			return nil, 0, fmt.Errorf("onnxruntime output: %w", err)
		}
		out = t
	}
	outs := []onnxrt.Value{out}
	runOpts, err := onnxrt.NewRunOptions()
	if err != nil {
		return nil, 0, fmt.Errorf("onnxruntime run options: %w", err)
	}
	defer runOpts.Destroy()
	stop := context.AfterFunc(ctx, func() { runOpts.Terminate() })
	err = g.sess.RunWithOptions(values, outs, runOpts)
	stop()
	if outs[0] != nil {
		defer outs[0].Destroy()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, engine.Errorf(engine.EUNAVAILABLE, "embedding cancelled: %v", ctx.Err())
		}
		return nil, 0, fmt.Errorf("onnxruntime run: %w", err)
	}
	t, ok := outs[0].(*onnxrt.Tensor[float32])
	if !ok {
		return nil, 0, fmt.Errorf("onnxruntime output is %T, not a float32 tensor", outs[0])
	}
	s := t.GetShape()
	if len(s) != 3 || s[0] != int64(b.Size) || s[1] != int64(b.SeqLen) {
		return nil, 0, fmt.Errorf("onnxruntime output shape %v, want [%d %d dim]", s, b.Size, b.SeqLen)
	}
	data := t.GetData()
	if g.dims == 0 {
		data = slices.Clone(data) // auto-allocated output: its memory goes with Destroy
	}
	return data, int(s[2]), nil
}

// Close destroys the session.
func (g *graph) Close() error { return g.sess.Destroy() }
