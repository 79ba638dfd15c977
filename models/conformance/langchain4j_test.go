package conformance

import (
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
)

// realORT returns the ort backend's vectors of the reference texts on the
// imported model (see ortVectors).
func realORT(t *testing.T, mode string) [][]float32 {
	t.Helper()
	return ortVectors(t, testenv.RealModelDir(t), mode)
}

// ortVectors returns the ort backend's vectors of the reference texts on
// dir, computed once per process. mode "single" embeds one text per call (no
// padding) and "batch" all texts in one call (sorted by length, padded within
// sub-batches of up to 32), both on the backend's fused rewrite of the graph;
// "exported" is one text per call on the graph as the folder holds it.
func ortVectors(t *testing.T, dir, mode string) [][]float32 {
	t.Helper()
	texts := referenceTexts(t)
	return vectors("ort|"+mode+"|"+dir, func() [][]float32 {
		e := openWith(t, models.Options{Backend: "ort", ModelDir: dir, NoFuse: mode == "exported"})
		if mode == "batch" {
			return embedAll(t, e, texts)
		}
		return embedEach(t, e, texts)
	})
}

// TestLangChain4jExport compares the ort backend on the imported model with
// the ort backend on langchain4j's ONNX export of the same model (an export
// of Xenova/all-MiniLM-L6-v2's onnx/model.onnx, made by another project from
// the same weights) on the 83 reference texts, normalised, within 1e-5 per
// component: one text per call and all texts in one batched call on the
// backend's fused graphs (rebuilt from each file's weights, so they agree
// only if the weights do), and one text per call on each graph as it was
// written (the imported graph against langchain4j's). It also logs how far
// batching and fusing move the vectors.
func TestLangChain4jExport(t *testing.T) {
	real := testenv.RealModelDir(t)
	l4j := langchain4jDir(t)
	for _, mode := range []string{"single", "batch", "exported"} {
		t.Run(mode, func(t *testing.T) {
			assertClose(t, "imported vs langchain4j, "+mode, ortVectors(t, real, mode), ortVectors(t, l4j, mode), tolNormalized)
		})
	}
	t.Run("batch and fusion", func(t *testing.T) {
		for _, dir := range []string{real, l4j} {
			assertClose(t, dir+": batch vs single", ortVectors(t, dir, "batch"), ortVectors(t, dir, "single"), tolNormalized)
			assertClose(t, dir+": exported vs fused graph", ortVectors(t, dir, "exported"), ortVectors(t, dir, "single"), tolNormalized)
		}
	})
}
