package modelimport_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/bertfuse/onnxpb"
	"github.com/lexsona/lexsona/models/modelimport"
)

// probeTexts are embedded alone and padded together by the equivalence tests.
var probeTexts = []string{
	"",
	"stop using sed to edit files, use the replace tool",
	"pnpm, not npm",
	"What is Deep Learning?",
	strings.Repeat("Never force-push to main; open a pull request and wait for the review. ", 10),
}

// The graph built from the safetensors of the tiny fixture is the graph
// scripts/gen_bert_onnx.py wrote for it: same nodes, names, attributes and
// initializer bytes (only the producer differs).
func TestImportBuildsTheGeneratorsGraph(t *testing.T) {
	tiny := mustTiny(t)
	src := mustTinyST(t).write(t, filepath.Join(t.TempDir(), "st"))
	dst := filepath.Join(t.TempDir(), "model")
	res := mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec})

	var got, want onnxpb.ModelProto
	if err := proto.Unmarshal(mustReadFile(t, filepath.Join(dst, "model.onnx")), &got); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(mustReadFile(t, filepath.Join(tiny, "model.onnx")), &want); err != nil {
		t.Fatal(err)
	}
	if got.GetProducerName() != "lexsona-modelimport" || got.GetProducerVersion() != modelimport.GraphVersion {
		t.Errorf("producer %q %q", got.GetProducerName(), got.GetProducerVersion())
	}
	got.ProducerName, got.ProducerVersion = want.ProducerName, want.ProducerVersion
	if !proto.Equal(&got, &want) {
		t.Fatalf("the imported graph differs from the fixture's (%d nodes, %d initializers against %d, %d)",
			len(got.GetGraph().GetNode()), len(got.GetGraph().GetInitializer()), len(want.GetGraph().GetNode()), len(want.GetGraph().GetInitializer()))
	}

	if res.Status != "imported" || res.Kind != modelimport.KindFolder {
		t.Errorf("status %q kind %q", res.Status, res.Kind)
	}
	a, err := os.Stat(filepath.Join(dst, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.Stat(filepath.Join(dst, "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(a, b) {
		t.Error("onnx/model.onnx is not a hard link of model.onnx")
	}
	var prov modelimport.Provenance
	if err := json.Unmarshal(mustReadFile(t, filepath.Join(dst, modelimport.ProvenanceFile)), &prov); err != nil {
		t.Fatal(err)
	}
	if prov.GraphSHA256 != res.GraphSHA256 || prov.Outputs["model.onnx"] != res.GraphSHA256 || prov.SourceSHA256 == "" ||
		prov.Inputs["model.safetensors"] == "" || prov.Checksum != "the source carries no checksums" {
		t.Errorf("import.json: %+v", prov)
	}
	if !strings.Contains(prov.Official, "conformance is numeric") {
		t.Errorf("official: %q", prov.Official)
	}
}

// The imported folder runs on the ort backend, giving the fixture's vectors
// within 1e-6, and on the go backend within 1e-5.
func TestImportedFolderRunsOnBothBackends(t *testing.T) {
	tiny := mustTiny(t)
	lib := mustORT(t)
	src := mustTinyST(t).write(t, filepath.Join(t.TempDir(), "st"))
	dst := filepath.Join(t.TempDir(), "model")
	mustImport(t, modelimport.Options{Source: src, Dest: dst, Spec: &tinySpec})

	want := mustEmbed(t, models.Options{Backend: "ort", ModelDir: tiny, OrtLib: lib, NoFuse: true}, probeTexts)
	for _, tt := range []struct {
		name string
		o    models.Options
		tol  float64
	}{
		{"ort", models.Options{Backend: "ort", ModelDir: dst, OrtLib: lib, NoFuse: true}, 1e-6},
		{"ort fused", models.Options{Backend: "ort", ModelDir: dst, OrtLib: lib}, 1e-5},
		{"go", models.Options{Backend: "go", ModelDir: dst}, 1e-5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := maxDiff(t, mustEmbed(t, tt.o, probeTexts), want); !(d <= tt.tol) {
				t.Errorf("largest difference from the fixture %g, want <= %g", d, tt.tol)
			}
		})
	}
}

// A langchain4j-style jar (an .onnx with its "-tokenizer.json" and no
// config) is recognised: the graph is copied, the configs are filled in
// from the spec and vocab.txt from the tokenizer, and it says so.
func TestImportJar(t *testing.T) {
	tiny := mustTiny(t)
	graph := mustReadFile(t, filepath.Join(tiny, "model.onnx"))
	jar := mustZip(t, filepath.Join(t.TempDir(), "tiny-embeddings.jar"), map[string][]byte{
		"META-INF/MANIFEST.MF":   []byte("Manifest-Version: 1.0\n"),
		"README":                 []byte("a model"),
		"tiny-l2.onnx":           graph,
		"tiny-l2-tokenizer.json": mustReadFile(t, filepath.Join(tiny, "tokenizer.json")),
	})
	dst := filepath.Join(t.TempDir(), "model")
	res := mustImport(t, modelimport.Options{Source: jar, Dest: dst, Spec: &tinySpec})
	if res.Kind != modelimport.KindJar || res.SafetensorsSHA256 != "" || !strings.Contains(res.Graph, "tiny-l2.onnx") {
		t.Errorf("kind %q, safetensors %q, graph %q", res.Kind, res.SafetensorsSHA256, res.Graph)
	}
	if string(mustReadFile(t, filepath.Join(dst, "model.onnx"))) != string(graph) {
		t.Error("model.onnx is not the jar's graph")
	}
	if got, want := mustReadFile(t, filepath.Join(dst, "vocab.txt")), mustReadFile(t, filepath.Join(tiny, "vocab.txt")); string(got) != string(want) {
		t.Error("vocab.txt written from tokenizer.json differs from the real vocab.txt")
	}
	var cfg map[string]any
	if err := json.Unmarshal(mustReadFile(t, filepath.Join(dst, "config.json")), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg["num_hidden_layers"] != 2.0 || cfg["hidden_size"] != 32.0 || cfg["architectures"].([]any)[0] != "BertModel" {
		t.Errorf("config.json filled in as %v", cfg)
	}
	filled := strings.Join(res.FilledIn, "\n")
	for _, f := range []string{"config.json", "modules.json", "1_Pooling/config.json", "sentence_bert_config.json", "vocab.txt", "tokenizer_config.json"} {
		if !strings.Contains(filled, f+":") {
			t.Errorf("filled_in does not mention %s: %q", f, res.FilledIn)
		}
		if _, err := os.Stat(filepath.Join(dst, filepath.FromSlash(f))); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "tiny-l2-tokenizer.json") {
		t.Errorf("notes do not name the tokenizer: %q", res.Notes)
	}
}

// A folder with onnx/model.onnx is an ONNX source; the graph is copied.
func TestImportONNXFolder(t *testing.T) {
	tiny := mustTiny(t)
	dst := filepath.Join(t.TempDir(), "model")
	res := mustImport(t, modelimport.Options{Source: tiny, Dest: dst, Spec: &tinySpec})
	if res.Kind != modelimport.KindONNX || len(res.FilledIn) != 0 {
		t.Errorf("kind %q, filled in %q", res.Kind, res.FilledIn)
	}
	if res.GraphSHA256 != res.Inputs["model.onnx"] {
		t.Errorf("graph %s, source model.onnx %s", res.GraphSHA256, res.Inputs["model.onnx"])
	}
}
