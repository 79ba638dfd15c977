package modelimport_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nlpodyssey/safetensors"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/modelimport"
)

// Anything that is not the spec's model is refused before anything is
// written, with a message saying what differs.
func TestImportRefusesAnotherModel(t *testing.T) {
	base := mustTinyST(t)
	ck := mustCheckpoint(t, filepath.Join(mustTiny(t), "model.onnx"))
	withWeights := func(edit func(checkpoint)) stFolder {
		c := checkpoint{}
		for k, v := range ck {
			c[k] = v
		}
		edit(c)
		f := stFolder{}
		for k, v := range base {
			f[k] = v
		}
		f["model.safetensors"] = mustSafetensors(t, c)
		return f
	}
	without := func(name string) stFolder {
		f := stFolder{}
		for k, v := range base {
			if k != name {
				f[k] = v
			}
		}
		return f
	}
	modules := func(types ...string) func(any) any {
		return func(any) any {
			var out []any
			for i, ty := range types {
				out = append(out, map[string]any{"idx": i, "path": map[int]string{0: "", 1: "1_Pooling"}[i], "type": "sentence_transformers.models." + ty})
			}
			return out
		}
	}
	tests := []struct {
		name string
		src  stFolder
		spec *modelimport.Spec
		want []string
	}{
		{"all-MiniLM-L6-v2 is not the tiny model", base, nil, []string{"config.json", "num_hidden_layers is 2, all-MiniLM-L6-v2 has 6", "hidden_size is 32, all-MiniLM-L6-v2 has 384"}},
		{"layers", base.editJSON(t, "config.json", set("num_hidden_layers", 12)), nil, []string{"num_hidden_layers is 12, all-MiniLM-L6-v2 has 6"}},
		{"layers (tiny)", base.editJSON(t, "config.json", set("num_hidden_layers", 3)), &tinySpec, []string{"num_hidden_layers is 3, tiny has 2"}},
		{"hidden", base.editJSON(t, "config.json", set("hidden_size", 64)), &tinySpec, []string{"hidden_size is 64, tiny has 32"}},
		{"heads", base.editJSON(t, "config.json", set("num_attention_heads", 4)), &tinySpec, []string{"num_attention_heads is 4, tiny has 2"}},
		{"architecture", base.editJSON(t, "config.json", func(v any) any {
			m := v.(map[string]any)
			m["architectures"], m["model_type"] = []string{"RobertaModel"}, "roberta"
			return m
		}), &tinySpec, []string{"architectures is [RobertaModel], tiny is a BertModel", `model_type is "roberta", tiny has "bert"`}},
		{"activation", base.editJSON(t, "config.json", set("hidden_act", "relu")), &tinySpec, []string{`hidden_act is "relu", tiny has "gelu"`}},
		{"positions", base.editJSON(t, "config.json", set("position_embedding_type", "relative_key")), &tinySpec, []string{`position_embedding_type is "relative_key"`}},
		{"missing size", base.editJSON(t, "config.json", func(v any) any { delete(v.(map[string]any), "intermediate_size"); return v }), &tinySpec, []string{"intermediate_size is missing, tiny has 64"}},
		{"CLS pooling", base.editJSON(t, "1_Pooling/config.json", func(v any) any {
			m := v.(map[string]any)
			m["pooling_mode_cls_token"], m["pooling_mode_mean_tokens"] = true, false
			return m
		}), &tinySpec, []string{"1_Pooling/config.json", "pooling_mode_mean_tokens is not true", "pooling_mode_cls_token is true"}},
		{"max pooling too", base.editJSON(t, "1_Pooling/config.json", set("pooling_mode_max_tokens", true)), &tinySpec, []string{"pooling_mode_max_tokens is true"}},
		{"no Normalize", base.editJSON(t, "modules.json", modules("Transformer", "Pooling")), &tinySpec, []string{"modules.json", "no Normalize module"}},
		{"a Dense module", base.editJSON(t, "modules.json", modules("Transformer", "Pooling", "Dense", "Normalize")), &tinySpec, []string{"sentence_transformers.models.Dense module"}},
		{"a pooling path outside the folder", base.editJSON(t, "modules.json", func(v any) any {
			v.([]any)[1].(map[string]any)["path"] = "../../escape"
			return v
		}), &tinySpec, []string{`the Pooling module's path "../../escape" is not a folder name`}},
		{"max_seq_length", base.editJSON(t, "sentence_bert_config.json", set("max_seq_length", 128)), &tinySpec, []string{"max_seq_length is 128, tiny has 256"}},
		{"missing tensor", withWeights(func(c checkpoint) { delete(c, "encoder.layer.1.output.dense.bias") }), &tinySpec, []string{"model.safetensors", "encoder.layer.1.output.dense.bias is missing"}},
		{"wrong tensor shape", withWeights(func(c checkpoint) {
			c["encoder.layer.0.intermediate.dense.weight"] = mustView(t, safetensors.F32, []uint64{32, 64}, make([]byte, 4*32*64))
		}), &tinySpec, []string{"encoder.layer.0.intermediate.dense.weight has shape [32 64], tiny's is [64 32]"}},
		{"float16 tensor", withWeights(func(c checkpoint) {
			c["embeddings.LayerNorm.bias"] = mustView(t, safetensors.F16, []uint64{32}, make([]byte, 2*32))
		}), &tinySpec, []string{"embeddings.LayerNorm.bias is F16"}},
		{"a third layer", withWeights(func(c checkpoint) {
			c["encoder.layer.2.output.dense.bias"] = mustView(t, safetensors.F32, []uint64{32}, make([]byte, 4*32))
		}), &tinySpec, []string{"the weights have 3 layers, tiny has 2"}},
		{"an unknown tensor", withWeights(func(c checkpoint) {
			c["classifier.weight"] = mustView(t, safetensors.F32, []uint64{2, 32}, make([]byte, 4*64))
		}), &tinySpec, []string{"classifier.weight is not a parameter of tiny"}},
		{"not safetensors", func() stFolder { f := without("x"); f["model.safetensors"] = []byte("not a checkpoint"); return f }(), &tinySpec, []string{"model.safetensors is not a safetensors file"}},
		{"no tokenizer", without("tokenizer.json"), &tinySpec, []string{"no tokenizer.json"}},
		{"tokenizer of another vocabulary", base.editJSON(t, "tokenizer.json", func(v any) any {
			delete(v.(map[string]any)["model"].(map[string]any)["vocab"].(map[string]any), "[UNK]")
			return v
		}), &tinySpec, []string{"tokenizer.json", "30521 tokens, tiny's has 30522"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src.write(t, filepath.Join(t.TempDir(), "src"))
			dst := filepath.Join(t.TempDir(), "model")
			_, err := modelimport.Import(context.Background(), modelimport.Options{Source: src, Dest: dst, Spec: tt.spec})
			wantErr(t, err, engine.EINVALID, tt.want...)
			if _, err := os.Stat(dst); !os.IsNotExist(err) {
				t.Errorf("%s was created (%v)", dst, err)
			}
			if s := siblings(t, dst); len(s) > 0 {
				t.Errorf("left behind: %v", s)
			}
		})
	}
}

// Sources that are not a model at all are refused with what to pass.
func TestImportRefusesBadSources(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "model.whl")
	mustWriteFile(t, garbage, []byte("this is not a zip"))
	tarball := filepath.Join(dir, "model.tar.gz")
	mustWriteFile(t, tarball, []byte("x"))
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	noModel := mustZip(t, filepath.Join(dir, "nomodel.jar"), map[string][]byte{"README": []byte("hi"), "a/b.class": []byte{0xca, 0xfe}})
	tests := []struct {
		name, src string
		want      []string
	}{
		{"missing", filepath.Join(dir, "nope"), []string{"no source at", "nope"}},
		{"empty", "", []string{"no source given"}},
		{"unknown kind", tarball, []string{"unknown kind", ".whl / .jar"}},
		{"not a zip", garbage, []string{"is not a zip archive"}},
		{"zip without a model", noModel, []string{"holds no model.safetensors and no .onnx model"}},
		{"folder without a model", empty, []string{"holds no model.safetensors and no .onnx model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := modelimport.Import(context.Background(), modelimport.Options{Source: tt.src, Dest: filepath.Join(t.TempDir(), "m"), Spec: &tinySpec})
			wantErr(t, err, engine.EINVALID, tt.want...)
		})
	}
}

// A model folder that is not one (someone's files) is never replaced, and
// the model is never written into its own source.
func TestImportRefusesDangerousDestinations(t *testing.T) {
	src := mustTinyST(t).write(t, filepath.Join(t.TempDir(), "src"))
	notModel := t.TempDir()
	mustWriteFile(t, filepath.Join(notModel, "notes.txt"), []byte("mine"))
	file := filepath.Join(t.TempDir(), "file")
	mustWriteFile(t, file, []byte("x"))
	for _, tt := range []struct {
		name, dst string
		want      string
	}{
		{"a folder of other files", notModel, "is not a model folder"},
		{"a file", file, "is a file"},
		{"inside the source", filepath.Join(src, "out"), "overlap"},
		{"the source itself", src, "overlap"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := modelimport.Import(context.Background(), modelimport.Options{Source: src, Dest: tt.dst, Spec: &tinySpec})
			wantErr(t, err, engine.EINVALID, tt.want)
		})
	}
	if _, err := os.Stat(filepath.Join(notModel, "notes.txt")); err != nil {
		t.Error(err)
	}
}
