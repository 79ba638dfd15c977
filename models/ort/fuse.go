package ort

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	onnxrt "github.com/yalue/onnxruntime_go"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/bertfuse"
)

// The ort backend runs a fused rewrite of the model's graph (see bertfuse:
// ONNX Runtime's contrib Attention, SkipLayerNormalization, BiasGelu and
// EmbedLayerNormalization in place of the export's many small operators)
// when the model is a BERT encoder it can rebuild and the rewrite gives the
// same sentence vectors on probe texts. The rewrite is made once per model
// file and kept beside it, in fusedDirName, so later starts load it directly.
// Vectors are those of the same model (equal within fusedTolerance), so the
// models.Identity stays the model file's.
const (
	fusedDirName   = ".lexsona-fused"
	fusedTolerance = 1e-4 // the largest component difference a probe vector may show
)

// fusedProbes are the texts a fused graph must embed like the original:
// an empty text, typical corrections and a long one, alone and padded together.
var fusedProbes = []string{
	"",
	"stop using sed to edit files, use the replace tool",
	"pnpm, not npm",
	strings.Repeat("Never force-push to main; open a pull request and wait for the review. ", 12),
}

// fusedPath is where the fused graph of a model file with this sha256 is kept.
func fusedPath(folder *models.Folder, sum string) string {
	return filepath.Join(folder.Dir, fusedDirName, fmt.Sprintf("%s-%s-%s.onnx", strings.TrimSuffix(filepath.Base(folder.Model), ".onnx"), bertfuse.Version, sum[:16]))
}

// startFusedCached loads a fused graph kept by an earlier start, if any; a
// file that does not load is removed (it is rebuilt).
func (e *Embedder) startFusedCached(path string, inputs []string, output string, opts *onnxrt.SessionOptions) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	if err := e.start(path, inputs, output, opts); err != nil {
		os.Remove(path)
		return false
	}
	return true
}

// fuse rebuilds the running model's graph, checks it on fusedProbes against
// the running session and, when equal, switches to it and keeps it at path.
// It returns why it did not switch ("" when it did).
func (e *Embedder) fuse(folder *models.Folder, path, output string, opts *onnxrt.SessionOptions) (why string) {
	cfg, err := bertfuse.ReadConfig(filepath.Join(folder.Dir, "config.json"))
	if err != nil {
		return err.Error()
	}
	src, err := os.ReadFile(folder.Model)
	if err != nil {
		return err.Error()
	}
	fused, err := bertfuse.Fuse(src, cfg)
	if err != nil {
		return err.Error()
	}
	sess, err := onnxrt.NewDynamicAdvancedSessionWithONNXData(fused, e.g.inputs, []string{output}, opts)
	if err != nil {
		return fmt.Sprintf("ONNX Runtime does not load the fused graph: %v", err)
	}
	g := &graph{sess: sess, inputs: e.g.inputs, dims: e.g.dims}
	if err := e.sameOnProbes(e.g, g); err != nil {
		g.Close()
		return err.Error()
	}
	e.g.Close()
	e.use(g)
	if err := writeFileAtomic(path, fused); err == nil { // else it runs fused, and the next start fuses again
		removeStaleFused(folder, path)
	}
	return ""
}

// sameOnProbes embeds fusedProbes, together and one by one, with both
// graphs and compares the pooled, normalised vectors.
func (e *Embedder) sameOnProbes(a, b *graph) error {
	encs, err := e.p.Tokenizer().EncodeBatch(fusedProbes)
	if err != nil {
		return err
	}
	batches := []models.Batch{models.PadBatch(encs)}
	for _, enc := range encs {
		batches = append(batches, models.PadBatch([]models.Encoding{enc}))
	}
	for _, pb := range batches {
		idx := make([]int, pb.Size)
		var got [2][][]float32
		for i, g := range []*graph{a, b} {
			var err error
			if got[i], err = models.ForwardPooled(context.Background(), g, pb, idx); err != nil {
				return err
			}
		}
		for r := range got[0] {
			for j, x := range got[0][r] {
				if d := math.Abs(float64(x - got[1][r][j])); !(d <= fusedTolerance) {
					return fmt.Errorf("the fused graph's vectors differ from the model's by %g (component %d of a probe text)", d, j)
				}
			}
		}
	}
	return nil
}

// removeStaleFused deletes fused graphs kept for other versions of the
// model file (or of bertfuse), keeping keep.
func removeStaleFused(folder *models.Folder, keep string) {
	prefix := strings.TrimSuffix(filepath.Base(folder.Model), ".onnx") + "-"
	entries, _ := os.ReadDir(filepath.Dir(keep))
	for _, ent := range entries {
		p := filepath.Join(filepath.Dir(keep), ent.Name())
		if p != keep && strings.HasPrefix(ent.Name(), prefix) && strings.HasSuffix(ent.Name(), ".onnx") {
			os.Remove(p)
		}
	}
}

// writeFileAtomic writes data to path through a temporary file and a rename,
// so a reader never sees a partial file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Chmod(0o644))
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// fuseWanted says whether to try fusing: not with models.Options.NoFuse
// (which the command line sets for LEXSONA_ORT_FUSE=0), and only for a
// model with the standard BERT inputs.
func fuseWanted(noFuse bool, inputs []string) bool {
	if noFuse {
		return false
	}
	return slices.Contains(inputs, "input_ids") && !slices.ContainsFunc(inputs, func(s string) bool {
		return s != "input_ids" && s != "attention_mask" && s != "token_type_ids"
	})
}
