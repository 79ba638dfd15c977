package modelimport

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nlpodyssey/safetensors"

	"github.com/lexsona/lexsona/engine"
)

// weight is one parameter of the graph: its Hugging Face name, its shape as
// the graph stores it and its little-endian float32 bytes.
type weight struct {
	name string
	dims []int64
	raw  []byte
}

// param is a parameter the checkpoint must hold: its name, its shape in the
// checkpoint and whether the graph stores it transposed (a torch Linear
// weight is [out, in]; MatMul wants [in, out]).
type param struct {
	name      string
	shape     []uint64
	transpose bool
}

// params lists spec's parameters in the order gen_bert_onnx.py writes them.
func params(spec Spec) []param {
	h, i := uint64(spec.Hidden), uint64(spec.Intermediate)
	ps := []param{
		{"embeddings.word_embeddings.weight", []uint64{uint64(spec.Vocab), h}, false},
		{"embeddings.position_embeddings.weight", []uint64{uint64(spec.MaxPositions), h}, false},
		{"embeddings.token_type_embeddings.weight", []uint64{uint64(spec.TypeVocab), h}, false},
		{"embeddings.LayerNorm.weight", []uint64{h}, false},
		{"embeddings.LayerNorm.bias", []uint64{h}, false},
	}
	for l := range spec.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, name := range []string{"query", "key", "value"} {
			ps = append(ps, param{p + "attention.self." + name + ".weight", []uint64{h, h}, true}, param{p + "attention.self." + name + ".bias", []uint64{h}, false})
		}
		ps = append(ps,
			param{p + "attention.output.dense.weight", []uint64{h, h}, true},
			param{p + "attention.output.dense.bias", []uint64{h}, false},
			param{p + "attention.output.LayerNorm.weight", []uint64{h}, false},
			param{p + "attention.output.LayerNorm.bias", []uint64{h}, false},
			param{p + "intermediate.dense.weight", []uint64{i, h}, true},
			param{p + "intermediate.dense.bias", []uint64{i}, false},
			param{p + "output.dense.weight", []uint64{h, i}, true},
			param{p + "output.dense.bias", []uint64{h}, false},
			param{p + "output.LayerNorm.weight", []uint64{h}, false},
			param{p + "output.LayerNorm.bias", []uint64{h}, false},
		)
	}
	return ps
}

var layerIndex = regexp.MustCompile(`(?:^|\.)encoder\.layer\.(\d+)\.`)

// ignoredTensor are checkpoint entries the encoder does not use: buffers and
// the pooler (sentence-transformers pools the tokens itself).
func ignoredTensor(name string) bool {
	return strings.HasSuffix(name, "embeddings.position_ids") || strings.HasSuffix(name, "embeddings.token_type_ids") ||
		strings.HasPrefix(name, "pooler.") || strings.Contains(name, ".pooler.")
}

// readWeights reads a model.safetensors and returns spec's parameters in
// graph order (Linear weights transposed), with a line saying what was
// checked. Names may carry a "bert." prefix. Errors are EINVALID: not a
// safetensors file, or naming each missing, unexpected, non-float32 or
// wrongly shaped tensor and a layer count other than spec's.
func readWeights(b []byte, spec Spec) ([]weight, string, error) {
	st, err := safetensors.Deserialize(b)
	if err != nil {
		return nil, "", engine.Errorf(engine.EINVALID, "model.safetensors is not a safetensors file: %v", err)
	}
	prefix := ""
	if _, ok := st.Tensor("embeddings.word_embeddings.weight"); !ok {
		if _, ok := st.Tensor("bert.embeddings.word_embeddings.weight"); ok {
			prefix = "bert."
		}
	}
	var diffs []string
	layers := -1
	for _, name := range st.Names() {
		if m := layerIndex.FindStringSubmatch(name); m != nil {
			n, _ := strconv.Atoi(m[1])
			layers = max(layers, n)
		}
	}
	if layers+1 != spec.Layers {
		diffs = append(diffs, fmt.Sprintf("the weights have %d layers, %s has %d", layers+1, spec.Name, spec.Layers))
	}
	ps := params(spec)
	want := map[string]bool{}
	out := make([]weight, 0, len(ps))
	for _, p := range ps {
		want[prefix+p.name] = true
		t, ok := st.Tensor(prefix + p.name)
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is missing", p.name))
			continue
		case t.DType() != safetensors.F32:
			diffs = append(diffs, fmt.Sprintf("%s is %s, the importer reads float32 (F32) weights", p.name, t.DType()))
			continue
		case !slices.Equal(t.Shape(), p.shape):
			diffs = append(diffs, fmt.Sprintf("%s has shape %v, %s's is %v", p.name, t.Shape(), spec.Name, p.shape))
			continue
		}
		w := weight{name: p.name, raw: t.Data()}
		for _, d := range p.shape {
			w.dims = append(w.dims, int64(d))
		}
		if p.transpose {
			w.raw = transpose4(w.raw, int(p.shape[0]), int(p.shape[1]))
			w.dims[0], w.dims[1] = w.dims[1], w.dims[0]
		}
		out = append(out, w)
	}
	if layers+1 == spec.Layers {
		for _, name := range st.Names() {
			if !want[name] && !ignoredTensor(name) {
				diffs = append(diffs, fmt.Sprintf("%s is not a parameter of %s", name, spec.Name))
			}
		}
	}
	if len(diffs) > 0 {
		if len(diffs) > 8 {
			diffs = append(diffs[:8], fmt.Sprintf("and %d more", len(diffs)-8))
		}
		return nil, "", differs("model.safetensors", diffs)
	}
	return out, fmt.Sprintf("weights: %d float32 tensors with %s's names and shapes", len(out), spec.Name), nil
}

// transpose4 transposes a row-major [rows, cols] matrix of 4-byte values.
func transpose4(src []byte, rows, cols int) []byte {
	dst := make([]byte, len(src))
	for r := range rows {
		for c := range cols {
			copy(dst[4*(c*rows+r):4*(c*rows+r)+4], src[4*(r*cols+c):4*(r*cols+c)+4])
		}
	}
	return dst
}
