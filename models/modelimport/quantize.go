package modelimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/bertfuse"
)

// Int8Variant names the quantized graph an import writes beside model.onnx:
// model_int8.onnx, hard-linked as onnx/model_int8.onnx (the name
// Transformers.js loads for dtype "int8"), selected with --variant int8.
const Int8Variant = "int8"

// VariantFile is the model-folder path of a variant's graph.
func VariantFile(variant string) string { return "model_" + variant + ".onnx" }

// Variant is one extra graph of the model folder, as import.json records it.
type Variant struct {
	File      string `json:"file"`      // its path in the model folder
	SHA256    string `json:"sha256"`    // of the file
	Quantizer string `json:"quantizer"` // the rewrite that made it (bertfuse.QuantizeVersion)
	Method    string `json:"method"`    // what the rewrite does, in words
	Weights   int    `json:"weights"`   // weight matrices stored as int8
	Params    int64  `json:"params"`    // int8 parameters
}

// int8Method describes bertfuse.Quantize's output for import.json.
const int8Method = "model.onnx fused (" + bertfuse.Version + ": EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu), " +
	"then dynamic quantization: every encoder weight matrix int8, symmetric, one scale per output column; " +
	"activations uint8 at run time with one scale per token (blocked QuantizeLinear, MatMulIntegerToFloat; attention in MultiHeadAttention), " +
	"so a text's vector does not depend on its batch; embeddings, biases and LayerNorms float32"

// quantize makes the int8 variant of graph (a model.onnx) with config (its
// config.json): bertfuse.Fuse, then bertfuse.Quantize. An error says why
// there is none (the graph is not a BERT encoder bertfuse rebuilds).
func quantize(graph, config []byte) ([]byte, *Variant, error) {
	cfg, err := bertfuse.ParseConfig(config)
	if err != nil {
		return nil, nil, fmt.Errorf("config.json: %w", err)
	}
	fused, err := bertfuse.Fuse(graph, cfg)
	if err != nil {
		return nil, nil, err
	}
	q, st, err := bertfuse.Quantize(fused)
	if err != nil {
		return nil, nil, err
	}
	return q, &Variant{
		File: VariantFile(Int8Variant), SHA256: sha256Hex(q), Quantizer: bertfuse.QuantizeVersion, Method: int8Method,
		Weights: st.Attention + st.MatMul, Params: st.Params,
	}, nil
}

// ReadProvenance reads the import.json of the model folder dir. Errors: the
// file cannot be read (wrapping the os error: errors.Is os.ErrNotExist for a
// folder not made by an import) or is not JSON.
func ReadProvenance(dir string) (*Provenance, error) {
	b, err := os.ReadFile(filepath.Join(dir, ProvenanceFile))
	if err != nil {
		return nil, err
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ProvenanceFile), err)
	}
	return &p, nil
}

// QuantizeFolder writes the int8 variant of the model folder dir's
// model.onnx (or onnx/model.onnx) into dir — model_int8.onnx, hard-linked
// as onnx/model_int8.onnx — for a folder an import did not write it in
// (`lexsona model pull`, or an import older than the int8 variant), and
// records it in import.json, which it creates when absent. Each file is
// written through a temporary file and a rename. Nothing is written when
// import.json already lists the very file it would write.
//
// Errors (*engine.Error): EINVALID when dir has no model.onnx and
// config.json or bertfuse cannot rebuild the graph (naming why);
// EUNAVAILABLE when a file cannot be read or written or ctx is cancelled.
func QuantizeFolder(ctx context.Context, dir string) (*Variant, error) {
	graphPath := filepath.Join(dir, "model.onnx")
	if _, err := os.Stat(graphPath); err != nil {
		graphPath = filepath.Join(dir, "onnx", "model.onnx")
	}
	graph, err := os.ReadFile(graphPath)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "no model.onnx or onnx/model.onnx in %s to quantize: %v", dir, unwrapPathErr(err))
	}
	config, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "no config.json in %s (the model's architecture): %v", dir, unwrapPathErr(err))
	}
	q, v, err := quantize(graph, config)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "cannot make the int8 variant of %s: %v", graphPath, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "quantizing was cancelled: %v", err)
	}
	p, err := ReadProvenance(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, engine.Errorf(engine.EUNAVAILABLE, "cannot read %s: %v", filepath.Join(dir, ProvenanceFile), err)
		}
		p = &Provenance{Importer: Version, Model: filepath.Base(dir), Source: dir, Kind: "model folder",
			Graph: "found in the folder (" + filepath.Base(graphPath) + ")", GraphSHA256: sha256Hex(graph), Outputs: map[string]string{}}
	}
	if old := p.Variants[Int8Variant]; old != nil && old.SHA256 == v.SHA256 {
		if sum, err := fileSHA256(filepath.Join(dir, v.File)); err == nil && sum == v.SHA256 {
			return old, nil
		}
	}
	top, inONNX := filepath.Join(dir, v.File), filepath.Join(dir, "onnx", v.File)
	if err := writeReplacing(top, q); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(inONNX), 0o755); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "cannot create %s: %v", filepath.Dir(inONNX), unwrapPathErr(err))
	}
	tmp := filepath.Join(dir, "onnx", "."+v.File+".link-"+randomSuffix())
	if os.Link(top, tmp) != nil || os.Rename(tmp, inONNX) != nil {
		os.Remove(tmp)
		if err := writeReplacing(inONNX, q); err != nil { // no links here: a copy
			return nil, err
		}
	}
	if p.Variants == nil {
		p.Variants = map[string]*Variant{}
	}
	if p.Outputs == nil {
		p.Outputs = map[string]string{}
	}
	p.Variants[Int8Variant] = v
	p.Outputs[v.File], p.Outputs["onnx/"+v.File] = v.SHA256, v.SHA256
	if err := writeReplacing(filepath.Join(dir, ProvenanceFile), mustJSON(p)); err != nil {
		return nil, err
	}
	return v, nil
}

// writeReplacing writes data to p through a synced temporary file beside
// it and a rename, so that a reader sees the old file or the new one.
func writeReplacing(p string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp-"+randomSuffix())
	if err := writeSynced(tmp, data); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return engine.Errorf(engine.EUNAVAILABLE, "cannot write %s: %v", p, unwrapPathErr(err))
	}
	return syncDir(filepath.Dir(p))
}
