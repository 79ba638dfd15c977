package modelimport_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlpodyssey/safetensors"
	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
	"github.com/lexsona/lexsona/models/modelimport"
	"github.com/lexsona/lexsona/models/ort"
)

// tinySpec is the tiny fixture's architecture (scripts/fixtures.sh: hidden
// 32, 2 layers, 2 heads, intermediate 64, the real vocabulary).
var tinySpec = modelimport.Spec{
	Name: "tiny", Repo: "lexsona/tiny", NameOrPath: "lexsona/tiny", Architecture: "BertModel", ModelType: "bert",
	Layers: 2, Hidden: 32, Heads: 2, Intermediate: 64, Vocab: 30522, MaxPositions: 512, TypeVocab: 2,
	Act: "gelu", PositionType: "absolute", LayerNormEps: 1e-12, MaxSeqLength: 256,
}

// stFiles are the files of a sentence-transformers folder besides the
// weights, as the tiny fixture folder has them.
var stFiles = []string{"config.json", "tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json",
	"modules.json", "sentence_bert_config.json", "1_Pooling/config.json"}

// mustTiny is .cache/models/tiny (scripts/fixtures.sh), or skips naming `make fixtures`.
func mustTiny(tb testing.TB) string {
	tb.Helper()
	d := filepath.Join(testenv.RepoRoot(tb), ".cache", "models", "tiny")
	if _, err := os.Stat(filepath.Join(d, "model.onnx")); err != nil {
		tb.Skipf("the tiny fixture %s is absent: run `make fixtures`", d)
	}
	return d
}

// mustORT returns a usable ONNX Runtime library, or skips — or fails under
// LEXSONA_REQUIRE_ORT=1.
func mustORT(tb testing.TB) string {
	tb.Helper()
	lib, _, _, err := ort.Usable("", testenv.ORTLib(), "")
	if err != nil {
		if testenv.ORTRequired() {
			tb.Fatalf("LEXSONA_REQUIRE_ORT=1 but ONNX Runtime is unusable: %v (run `make ort`)", err)
		}
		tb.Skipf("ONNX Runtime is unusable (%v): run `make ort` or set LEXSONA_ORT_LIB", err)
	}
	return lib
}

// mustReadFile reads a file or fails the test.
func mustReadFile(tb testing.TB, p string) []byte {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mustWriteFile writes a file (creating its folder) or fails the test.
func mustWriteFile(tb testing.TB, p string, b []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// checkpoint is a model's parameters as a torch checkpoint stores them
// (Linear weights [out, in]), by name.
type checkpoint map[string]safetensors.TensorView

// mustCheckpoint turns the initializers of the tiny fixture's graph back
// into the checkpoint it would have been exported from: the 2-D encoder
// weights transposed to [out, in], plus the buffers and pooler a real
// checkpoint carries.
func mustCheckpoint(tb testing.TB, modelPath string) checkpoint {
	tb.Helper()
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(mustReadFile(tb, modelPath), &m); err != nil {
		tb.Fatal(err)
	}
	ck := checkpoint{}
	for _, t := range m.GetGraph().GetInitializer() {
		name := t.GetName()
		if strings.HasPrefix(name, "const.") {
			continue
		}
		dims := t.GetDims()
		shape := make([]uint64, len(dims))
		for i, d := range dims {
			shape[i] = uint64(d)
		}
		raw := t.GetRawData()
		if strings.HasPrefix(name, "encoder.layer.") && strings.HasSuffix(name, ".weight") && len(dims) == 2 {
			raw = transpose4(raw, int(dims[0]), int(dims[1]))
			shape[0], shape[1] = shape[1], shape[0]
		}
		ck[name] = mustView(tb, safetensors.F32, shape, raw)
	}
	h := ck["embeddings.LayerNorm.bias"].Shape()[0]
	ids := make([]byte, 8*512)
	for i := range 512 {
		ids[8*i] = byte(i)
		ids[8*i+1] = byte(i >> 8)
	}
	ck["embeddings.position_ids"] = mustView(tb, safetensors.I64, []uint64{1, 512}, ids)
	ck["pooler.dense.weight"] = mustView(tb, safetensors.F32, []uint64{h, h}, make([]byte, 4*h*h))
	ck["pooler.dense.bias"] = mustView(tb, safetensors.F32, []uint64{h}, make([]byte, 4*h))
	return ck
}

func mustView(tb testing.TB, dt safetensors.DType, shape []uint64, raw []byte) safetensors.TensorView {
	tb.Helper()
	v, err := safetensors.NewTensorView(dt, shape, raw)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func transpose4(src []byte, rows, cols int) []byte {
	dst := make([]byte, len(src))
	for r := range rows {
		for c := range cols {
			copy(dst[4*(c*rows+r):], src[4*(r*cols+c):4*(r*cols+c)+4])
		}
	}
	return dst
}

// stFolder is a sentence-transformers folder's files by path.
type stFolder map[string][]byte

// mustTinyST is the tiny fixture as a sentence-transformers folder's files:
// model.safetensors and the fixture's config, tokenizer and module files.
func mustTinyST(tb testing.TB) stFolder {
	tb.Helper()
	tiny := mustTiny(tb)
	f := stFolder{"model.safetensors": mustSafetensors(tb, mustCheckpoint(tb, filepath.Join(tiny, "model.onnx")))}
	for _, name := range stFiles {
		f[name] = mustReadFile(tb, filepath.Join(tiny, filepath.FromSlash(name)))
	}
	return f
}

func mustSafetensors(tb testing.TB, ck checkpoint) []byte {
	tb.Helper()
	b, err := safetensors.Serialize(map[string]safetensors.TensorView(ck), map[string]string{"format": "pt"})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// write writes the folder under dir and returns dir.
func (f stFolder) write(tb testing.TB, dir string) string {
	tb.Helper()
	for name, b := range f {
		mustWriteFile(tb, filepath.Join(dir, filepath.FromSlash(name)), b)
	}
	return dir
}

// editJSON returns f with the JSON file name changed by edit.
func (f stFolder) editJSON(tb testing.TB, name string, edit func(v any) any) stFolder {
	tb.Helper()
	var v any
	if err := json.Unmarshal(f[name], &v); err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(edit(v))
	if err != nil {
		tb.Fatal(err)
	}
	out := stFolder{}
	for k, x := range f {
		out[k] = x
	}
	out[name] = b
	return out
}

// set returns a JSON object editor that sets key to val.
func set(key string, val any) func(v any) any {
	return func(v any) any {
		v.(map[string]any)[key] = val
		return v
	}
}

// mustImport imports or fails the test.
func mustImport(tb testing.TB, o modelimport.Options) *modelimport.Result {
	tb.Helper()
	res, err := modelimport.Import(context.Background(), o)
	if err != nil {
		tb.Fatalf("import %s: %v", o.Source, err)
	}
	return res
}

// wantErr checks that err is an *engine.Error of code whose message holds
// every part.
func wantErr(tb testing.TB, err error, code string, parts ...string) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("no error; want %s naming %q", code, parts)
	}
	if got := engine.ErrorCode(err); got != code {
		tb.Fatalf("error code %s (%v), want %s", got, err, code)
	}
	for _, p := range parts {
		if !strings.Contains(engine.ErrorMessage(err), p) {
			tb.Errorf("error %q does not say %q", engine.ErrorMessage(err), p)
		}
	}
}

// mustEmbed embeds texts with the backend on dir, closing the embedder.
func mustEmbed(tb testing.TB, o models.Options, texts []string) [][]float32 {
	tb.Helper()
	o.CacheSize = -1
	e, err := auto.Open(context.Background(), o)
	if err != nil {
		tb.Fatalf("open %s on %s: %v", o.Backend, o.ModelDir, err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		tb.Fatal(err)
	}
	return vecs
}

// maxDiff is the largest component difference between two sets of vectors.
func maxDiff(tb testing.TB, a, b [][]float32) float64 {
	tb.Helper()
	if len(a) != len(b) {
		tb.Fatalf("%d vectors against %d", len(a), len(b))
	}
	d := 0.0
	for i := range a {
		if len(a[i]) != len(b[i]) {
			tb.Fatalf("vector %d: %d dims against %d", i, len(a[i]), len(b[i]))
		}
		for j := range a[i] {
			d = math.Max(d, math.Abs(float64(a[i][j]-b[i][j])))
		}
	}
	return d
}

// listing is every file under dir (relative path → size, mode, mtime), to
// show that a folder was left untouched.
func listing(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := ""
		if info.Mode().IsRegular() {
			s := sha256.Sum256(mustReadFile(tb, p))
			sum = fmt.Sprintf("%x", s[:8])
		}
		out[rel] = fmt.Sprintf("%d %v %d %s", info.Size(), info.Mode(), info.ModTime().UnixNano(), sum)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// siblings are the names in dir's parent that start with dir's name and a dot
// (leftover temporary or old folders).
func siblings(tb testing.TB, dir string) []string {
	tb.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".*"))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
