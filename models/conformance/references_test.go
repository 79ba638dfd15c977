package conformance

import (
	"slices"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

// TestTransformersJS compares the ort backend on the imported model with
// Transformers.js (the paper's stack: onnxruntime-node, its own tokenizer
// reading the folder's tokenizer.json) on the same folder, on the 83
// reference texts one at a time: the token ids must be identical and the
// normalised vectors agree within 1e-5 per component.
func TestTransformersJS(t *testing.T) {
	dir := testenv.RealModelDir(t)
	texts := referenceTexts(t)
	js := transformersJS(t, dir, texts)
	ours := tokenIDs(t, dir, texts)
	for i := range texts {
		if !slices.Equal(js.IDs[i], ours[i]) {
			t.Errorf("text %d %q: Transformers.js ids %v, ours %v", i, texts[i], js.IDs[i], ours[i])
		}
	}
	if sha := open(t, "ort", dir, 0).Identity().SHA256; js.ModelSHA256 != sha {
		t.Fatalf("Transformers.js ran a model with sha256 %s, the ort backend %s", js.ModelSHA256, sha)
	}
	assertClose(t, "ort backend vs Transformers.js", realORT(t, "single"), js.Vectors, tolNormalized)
}

// TestFloat64Reference compares the ort backend on the imported model with a
// float64 forward pass computed by scripts/ref_forward.py (numpy alone) from
// the model.safetensors weights, on the project's token ids of the reference
// texts (the slowSubset of them), within 1e-5 per component. It is the check
// that the imported ONNX graph computes the weights it was built from.
func TestFloat64Reference(t *testing.T) {
	dir := testenv.RealModelDir(t)
	st, builtFrom := safetensors(t, dir)
	texts := referenceTexts(t)
	ids := tokenIDs(t, dir, texts)
	idx := slowSubset(t, texts, ids)
	ref := refForward(t, st, pick(ids, idx))
	checkWeights(t, ref.ModelSHA256, builtFrom)
	d := assertClose(t, "ort backend vs float64 numpy", pick(realORT(t, "single"), idx), ref.Vectors, tolNormalized)
	t.Logf("the largest difference is in reference text %d", idx[d.text])
}

// TestGoBackend compares the go backend (hugot's pure-Go forward pass, the
// project's tokenizer and pooling) with the ort backend on the imported
// model, on the slowSubset of the reference texts in one batched call,
// within 1e-5 per component.
func TestGoBackend(t *testing.T) {
	dir := testenv.RealModelDir(t)
	texts := referenceTexts(t)
	idx := slowSubset(t, texts, tokenIDs(t, dir, texts))
	got := embedAll(t, open(t, "go", dir, 0), pick(texts, idx))
	d := assertClose(t, "go backend vs ort backend", got, pick(realORT(t, "single"), idx), tolNormalized)
	t.Logf("the largest difference is in reference text %d", idx[d.text])
}
