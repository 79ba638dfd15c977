package modelimport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
)

// checkONNX checks what an ONNX graph made elsewhere shows of spec's model:
// the BERT inputs (input_ids, attention_mask, token_type_ids), a
// last_hidden_state output, the layer count and the word embedding's shape
// read from the initializers' names (plain or quantized: "…weight_quantized").
// It returns the checks made. Errors are EINVALID: not an ONNX model, or
// naming each difference.
func checkONNX(b []byte, spec Spec) ([]string, error) {
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(b, &m); err != nil || m.GetGraph() == nil {
		return nil, engine.Errorf(engine.EINVALID, "model.onnx is not an ONNX model (%v)", err)
	}
	g := m.GetGraph()
	inits := map[string]*onnxpb.TensorProto{}
	layers := -1
	for _, t := range g.GetInitializer() {
		inits[t.GetName()] = t
		if mm := layerIndex.FindStringSubmatch(t.GetName()); mm != nil {
			n, _ := strconv.Atoi(mm[1])
			layers = max(layers, n)
		}
	}
	var diffs, checks []string
	var ins []string
	for _, in := range g.GetInput() {
		if _, isInit := inits[in.GetName()]; !isInit {
			ins = append(ins, in.GetName())
		}
	}
	for _, want := range []string{"input_ids", "attention_mask"} {
		if !slices.Contains(ins, want) {
			diffs = append(diffs, fmt.Sprintf("it has no %s input (inputs: %s)", want, strings.Join(ins, ", ")))
		}
	}
	for _, in := range ins {
		if in != "input_ids" && in != "attention_mask" && in != "token_type_ids" {
			diffs = append(diffs, fmt.Sprintf("its input %s is not a BERT input", in))
		}
	}
	outs := make([]string, 0, len(g.GetOutput()))
	for _, o := range g.GetOutput() {
		outs = append(outs, o.GetName())
	}
	if !slices.Contains(outs, "last_hidden_state") {
		diffs = append(diffs, fmt.Sprintf("it has no last_hidden_state output (outputs: %s)", strings.Join(outs, ", ")))
	}
	if layers >= 0 {
		if layers+1 != spec.Layers {
			diffs = append(diffs, fmt.Sprintf("its weights have %d layers, %s has %d", layers+1, spec.Name, spec.Layers))
		} else {
			checks = append(checks, fmt.Sprintf("graph: %d layers (from the weights' names)", spec.Layers))
		}
	} else {
		checks = append(checks, "graph: the layer count is not visible in the weights' names (not checked)")
	}
	var word *onnxpb.TensorProto
	for name, t := range inits {
		if strings.HasSuffix(name, "word_embeddings.weight") || strings.HasSuffix(name, "word_embeddings.weight_quantized") {
			word = t
		}
	}
	want := []int64{int64(spec.Vocab), int64(spec.Hidden)}
	switch {
	case word == nil:
		checks = append(checks, "graph: no word_embeddings weight by name (vocabulary and width not checked)")
	case !slices.Equal(word.GetDims(), want):
		diffs = append(diffs, fmt.Sprintf("its word embeddings have shape %v, %s's are %v", word.GetDims(), spec.Name, want))
	default:
		checks = append(checks, fmt.Sprintf("graph: word embeddings %v", want))
	}
	if len(diffs) > 0 {
		return nil, differs("model.onnx", diffs)
	}
	return checks, nil
}
