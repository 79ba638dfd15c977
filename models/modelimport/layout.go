package modelimport

import (
	"fmt"
	"path"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// layout is where a model's files are in a list of paths.
type layout struct {
	root    string            // the folder holding the model ("" for the top)
	weights bool              // the model file is model.safetensors (else an ONNX graph)
	files   map[string]string // model-folder path → source path
	notes   []string
}

// findLayout finds the model in a list of slash-separated paths: the one
// model.safetensors, else the one model.onnx (in X/ or X/onnx/), else the
// one .onnx file with its "<name>-tokenizer.json" beside it. Errors are
// EINVALID, naming where (in what) nothing or too much was found.
func findLayout(names []string, in string) (*layout, error) {
	byBase := func(base string) []string {
		var out []string
		for _, n := range names {
			if path.Base(n) == base {
				out = append(out, n)
			}
		}
		return out
	}
	l := &layout{files: map[string]string{}}
	var model string
	if st := byBase("model.safetensors"); len(st) > 1 {
		return nil, engine.Errorf(engine.EINVALID, "%s holds %d model.safetensors files (%s): pass the folder of the one to import", in, len(st), strings.Join(st, ", "))
	} else if len(st) == 1 {
		model, l.weights = st[0], true
		l.root = path.Dir(model)
		l.files["model.safetensors"] = model
	} else if on := byBase("model.onnx"); len(on) > 0 {
		roots := map[string]string{}
		for _, o := range on {
			r := path.Dir(o)
			if path.Base(r) == "onnx" {
				r = path.Dir(r)
				roots[r] = o // onnx/model.onnx wins over a model.onnx beside it
			} else if _, ok := roots[r]; !ok {
				roots[r] = o
			}
		}
		if len(roots) > 1 {
			return nil, engine.Errorf(engine.EINVALID, "%s holds model.onnx in %d places (%s): pass the folder of the one to import", in, len(roots), strings.Join(on, ", "))
		}
		for r, o := range roots {
			l.root, model = r, o
		}
		l.files["model.onnx"] = model
	} else {
		var onnxFiles []string
		for _, n := range names {
			if strings.HasSuffix(strings.ToLower(n), ".onnx") {
				onnxFiles = append(onnxFiles, n)
			}
		}
		switch len(onnxFiles) {
		case 0:
			return nil, engine.Errorf(engine.EINVALID, "%s holds no model.safetensors and no .onnx model: pass %s", in, acceptedSources)
		case 1:
		default:
			return nil, engine.Errorf(engine.EINVALID, "%s holds several .onnx files and no model.onnx (%s): pass the folder of the one to import", in, strings.Join(onnxFiles, ", "))
		}
		model = onnxFiles[0]
		l.root = path.Dir(model)
		l.files["model.onnx"] = model
	}
	if l.root == "." {
		l.root = ""
	}
	under := func(rel string) string {
		if l.root == "" {
			return rel
		}
		return l.root + "/" + rel
	}
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	for _, f := range wantedFiles {
		if have[under(f)] {
			l.files[f] = under(f)
		}
	}
	// Module folders' configs (1_Pooling/config.json, …).
	for _, n := range names {
		rel := strings.TrimPrefix(n, under(""))
		if (l.root == "" || strings.HasPrefix(n, l.root+"/")) && strings.Count(rel, "/") == 1 && path.Base(rel) == "config.json" && path.Dir(rel) != "onnx" {
			l.files[rel] = n
		}
	}
	if _, ok := l.files["tokenizer.json"]; !ok && !l.weights {
		// langchain4j's layout: all-minilm-l6-v2.onnx beside all-minilm-l6-v2-tokenizer.json.
		stem := strings.TrimSuffix(path.Base(model), path.Ext(model))
		if t := path.Join(path.Dir(model), stem+"-tokenizer.json"); have[t] {
			l.files["tokenizer.json"] = t
			l.notes = append(l.notes, fmt.Sprintf("the tokenizer is %s (langchain4j's layout)", t))
		}
	}
	if _, ok := l.files["tokenizer.json"]; !ok {
		return nil, engine.Errorf(engine.EINVALID, "%s has %s but no tokenizer.json beside it: the tokenizer is needed", in, model)
	}
	return l, nil
}
