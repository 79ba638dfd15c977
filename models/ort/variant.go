package ort

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/bertfuse"
	"github.com/lexsona/lexsona/models/modelimport"
)

// int8Verdict is what was measured of one int8 rewrite's graph of the real
// all-MiniLM-L6-v2 against the float32 graph.
type int8Verdict struct {
	// ClassifiesAsWell: `lexsona eval` on the held-out split gave auto-band
	// precision and recall and polarity errors within 0.01 of float32's.
	ClassifiesAsWell bool
	Measured         string // the numbers, for the log line
	// PerToken: the rewrite quantizes activations with one scale per token,
	// so its graph runs in batches (see batchInvariant).
	PerToken bool
}

// int8Verdicts are the int8 rewrites (bertfuse.QuantizeVersion) that were
// measured; auto runs int8 only for one that classifies as well.
var int8Verdicts = map[string]int8Verdict{
	"bertfuse-int8-v1": { // activations scaled per call; run one text per call
		ClassifiesAsWell: false,
		Measured: "held-out split at each graph's thresholds calibrated on dev (float32 auto 0.37 / confirm 0.30, int8 0.37 / 0.31): " +
			"auto-band recall 0.599 (91/152) against float32's 0.618 (94/152): 4 auto matches lost (1 fell below 0.37, 3 were demoted by the guard, " +
			"2 of them by its 0.02 margin over the runner-up) and 1 gained; precision 0.929 (91/98) against 0.931 (94/101), " +
			"polarity errors 1/34 both; cosine with the float32 vectors median 0.993, min 0.969 (TestInt8MatchesFP32)",
	},
	bertfuse.QuantizeVersion: {
		PerToken:         true,
		ClassifiesAsWell: false,
		Measured: "held-out split at each graph's thresholds calibrated on dev (float32 auto 0.39 / confirm 0.30, int8 0.37 / 0.30): " +
			"auto-band precision 0.934 (99/106) and recall 0.651 (99/152) against float32's 0.950 (95/100) and 0.625 (95/152); " +
			"at float32's thresholds 0.949 (93/98) and 0.612 (93/152), 2 auto matches fewer; polarity errors 1/34 both; " +
			"cosine with the float32 vectors median 0.997, min 0.979 (TestInt8MatchesFP32)",
	},
}

// The check auto makes, once per machine, model files and ONNX Runtime
// version, before it runs int8: the cosine of the int8 and float32 vectors
// of int8Probes must reach these.
const (
	int8MinCosine    = 0.95
	int8MedianCosine = 0.98
)

// int8Probes are typical corrections and a few harder texts (long, CJK,
// code, emoji), embedded with both graphs by the check.
var int8Probes = append(slices.Clone(fusedProbes),
	"use pnpm instead of npm in this repo",
	"Never commit directly to main.",
	"no, run the tests with go test ./... not go run",
	"don't add comments that just repeat the code",
	"prefer early returns over nested if statements",
	"please don't reformat unrelated files in the same commit",
	"Use `rg` rather than `grep -r`; it respects .gitignore",
	"日本語のコメントは英語に書き換えてください",
	"stop apologising 🙏 and just fix the failing test",
	"The API returns snake_case JSON; don't camelCase the fields in handlers/user.go",
)

// quantizesActivations says whether a variant's graph may quantize its
// activations per call, over the whole batch (ONNX Runtime's dynamic
// quantization, as in the published qint8/quint8 files): every int8
// variant, unless batchInvariant knows its file.
func quantizesActivations(variant string) bool {
	return strings.Contains(variant, "int8")
}

// batchInvariant says whether the int8 graph file of folder, whose sha256
// is sum, computes each text's vector from that text alone, so that it can
// run in batches: import.json lists that very file as made by a rewrite that
// scales activations token by token (int8Verdicts' PerToken). Any other
// graph counts as scaling per call (ONNX Runtime's dynamic quantization, as
// in the published qint8/quint8 files).
func batchInvariant(folder *models.Folder, sum string) bool {
	p, err := modelimport.ReadProvenance(folder.Dir)
	if err != nil {
		return false
	}
	v := p.Variants[models.VariantInt8]
	return v != nil && v.SHA256 == sum && int8Verdicts[v.Quantizer].PerToken
}

// int8CPU says whether this CPU has the instructions ONNX Runtime's int8
// matrix kernels are fast with, naming them or what is missing.
func int8CPU() (bool, string) {
	switch {
	case runtime.GOARCH != "amd64":
		return false, "int8 speed is unmeasured on " + runtime.GOARCH
	case cpu.X86.HasAVX512VNNI:
		return true, "AVX-512 VNNI"
	case cpu.X86.HasAVXVNNI:
		return true, "AVX-VNNI"
	case cpu.X86.HasAVX2:
		return true, "AVX2 (no VNNI)"
	}
	return false, "the CPU has no AVX2, which ONNX Runtime's fast int8 kernels need"
}

// Open opens folder's model with ONNX Runtime from lib. o.Variant is the
// graph to run as models.RequestedVariant gives it: "" for model.onnx, a
// variant name, or models.VariantAuto (see openAutoVariant); folder is the
// one models.ResolveFolder found for models.FileVariant(o.Variant). Unless
// o.NoFuse, model.onnx runs as its fused rewrite
// when one can be made (see fuse.go). An int8 graph runs one text per call
// unless batchInvariant knows it scales activations per token. log (nil:
// nowhere) is told which graph runs when it is not the one asked for;
// LogAttrs names what runs.
//
// Errors (*engine.Error): EUNAVAILABLE, naming the path and what to do, for
// a library that is missing, unusable or older than MinVersion, and for a
// model ONNX Runtime cannot load (corrupt, truncated, or not a BERT sentence
// encoder).
func Open(folder *models.Folder, lib string, o models.Options, log *slog.Logger) (*Embedder, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var e *Embedder
	var err error
	why := ""
	switch o.Variant {
	case models.VariantAuto:
		e, folder, why, err = openAutoVariant(folder, lib, o, log)
	case models.VariantInt8:
		if ok, what := int8CPU(); !ok {
			log.Warn("ort: running int8 on a CPU it is slow on", "why", what)
		}
		fallthrough
	default:
		e, err = newEmbedder(folder, lib, o.Threads, o.MaxBatch, o.NoFuse, log)
	}
	if err != nil {
		return nil, err
	}
	e.folder, e.why = folder, why
	if e.perText && batchInvariant(folder, e.Identity().SHA256) {
		e.perText = false
		e.p.SetCallSize(o.MaxBatch)
	}
	return e, nil
}

// openAutoVariant runs model_int8.onnx when the folder has one that
// `lexsona model import` made with a rewrite measured to classify like
// float32 (int8Verdicts), the CPU has int8 instructions (int8CPU) and, on
// this machine, its vectors of int8Probes agree with model.onnx's
// (checkInt8); otherwise model.onnx. The string says which and why.
func openAutoVariant(fp32 *models.Folder, lib string, o models.Options, log *slog.Logger) (*Embedder, *models.Folder, string, error) {
	fallback := func(why string) (*Embedder, *models.Folder, string, error) {
		e, err := newEmbedder(fp32, lib, o.Threads, o.MaxBatch, o.NoFuse, log)
		return e, fp32, "fp32: " + why, err
	}
	q8, err := models.ResolveFolder(fp32.Dir, models.VariantInt8)
	if err != nil {
		return fallback("the model folder has no " + modelimport.VariantFile(models.VariantInt8) + " (`lexsona model import` writes one)")
	}
	cpuOK, cpuWhat := int8CPU()
	if !cpuOK {
		return fallback(cpuWhat)
	}
	if why := untrustedInt8(q8); why != "" {
		return fallback(why)
	}
	e, err := newEmbedder(q8, lib, o.Threads, o.MaxBatch, true, log)
	if err != nil {
		return fallback("ONNX Runtime cannot run " + q8.Model + ": " + engine.ErrorMessage(err))
	}
	c, err := checkInt8(e, fp32, lib, o, cpuWhat)
	if err == nil && !c.ok() {
		err = fmt.Errorf("its vectors differ from model.onnx's on this machine: %s; want min >= %.2f and median >= %.2f", c, int8MinCosine, int8MedianCosine)
	}
	if err != nil {
		e.Close()
		return fallback(modelimport.VariantFile(models.VariantInt8) + ": " + err.Error())
	}
	return e, q8, fmt.Sprintf("int8: the CPU has %s and %s embeds like model.onnx here (%s)", cpuWhat, modelimport.VariantFile(models.VariantInt8), c), nil
}

// untrustedInt8 says why the int8 graph of folder is not one auto runs
// ("" when it is): import.json must list it with its sha256 and a rewrite
// int8Verdicts says classifies like float32.
func untrustedInt8(folder *models.Folder) string {
	p, err := modelimport.ReadProvenance(folder.Dir)
	if err != nil {
		return "no readable " + modelimport.ProvenanceFile + " says how " + filepath.Base(folder.Model) + " was made"
	}
	v := p.Variants[models.VariantInt8]
	if v == nil {
		return modelimport.ProvenanceFile + " does not list " + filepath.Base(folder.Model)
	}
	if sum, err := models.FileSHA256(folder.Model); err != nil || sum != v.SHA256 {
		return filepath.Base(folder.Model) + " is not the file " + modelimport.ProvenanceFile + " lists (its sha256 differs)"
	}
	verdict, measured := int8Verdicts[v.Quantizer]
	switch {
	case !measured:
		return fmt.Sprintf("%s was made by %s, whose quality this version has not measured", filepath.Base(folder.Model), v.Quantizer)
	case !verdict.ClassifiesAsWell:
		return fmt.Sprintf("%s (%s) is not measured to classify like float32: %s", filepath.Base(folder.Model), v.Quantizer, verdict.Measured)
	}
	return ""
}

// variantWhy is the log attribute why_variant with an auto choice's reason,
// or an empty attribute (which slog drops) when the variant was asked for.
func variantWhy(why string) slog.Attr {
	if why == "" {
		return slog.Attr{}
	}
	return slog.String("why_variant", why)
}

// describeVariant is the log attribute value naming the graph that runs.
func describeVariant(folder *models.Folder) string {
	if folder.Variant == "" {
		return models.VariantFP32
	}
	return folder.Variant
}
