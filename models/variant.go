package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/bertfuse"
	"github.com/lexsona/lexsona/models/modelimport"
)

// The graphs of a model folder Options.Variant picks from.
const (
	// VariantFP32 is model.onnx, the float32 graph (also Variant "").
	VariantFP32 = "fp32"
	// VariantInt8 is model_int8.onnx, the int8 graph `lexsona model import`
	// writes (modelimport.Int8Variant).
	VariantInt8 = modelimport.Int8Variant
	// VariantAuto is int8 where it is known to embed like fp32 and this CPU
	// has the instructions its kernels need, else fp32 (see openAutoVariant).
	VariantAuto = "auto"
)

// int8Verdict is what was measured of one int8 rewrite's graph of the real
// all-MiniLM-L6-v2 against the float32 graph.
type int8Verdict struct {
	// ClassifiesAsWell: `lexsona eval` on the held-out split gave auto-band
	// precision and recall and polarity errors within 0.01 of float32's.
	ClassifiesAsWell bool
	Measured         string // the numbers, for the log line
}

// int8Verdicts are the int8 rewrites (bertfuse.QuantizeVersion) that were
// measured; auto runs int8 only for one that classifies as well.
var int8Verdicts = map[string]int8Verdict{
	bertfuse.QuantizeVersion: {
		ClassifiesAsWell: false,
		Measured: "held-out split at each graph's thresholds calibrated on dev (float32 auto 0.37 / confirm 0.30, int8 0.37 / 0.31): " +
			"auto-band recall 0.599 (91/152) against float32's 0.618 (94/152): 4 auto matches lost (1 fell below 0.37, 3 were demoted by the guard, " +
			"2 of them by its 0.02 margin over the runner-up) and 1 gained; precision 0.929 (91/98) against 0.931 (94/101), " +
			"polarity errors 1/34 both; cosine with the float32 vectors median 0.993, min 0.969 (TestInt8MatchesFP32)",
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

// requestedVariant is v, else $LEXSONA_MODEL_VARIANT; "fp32" is "" (model.onnx).
func requestedVariant(v string) string {
	if v == "" {
		v = os.Getenv("LEXSONA_MODEL_VARIANT")
	}
	if v == VariantFP32 {
		return ""
	}
	return v
}

// quantizesActivations says whether a variant's graph quantizes its
// activations per call, over the whole batch (ONNX Runtime's dynamic
// quantization: the int8 graph and the published qint8/quint8 files).
func quantizesActivations(variant string) bool {
	return strings.Contains(variant, "int8")
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

// openORTVariant opens the ort embedder of variant ("" for model.onnx, a
// variant name, or VariantAuto) given the folder resolved for model.onnx (or
// for the variant). It returns the folder that runs and, for auto, why that
// one (a phrase starting with the variant chosen).
func openORTVariant(folder *modelFolder, variant, lib string, o Options, log *slog.Logger) (*ortEmbedder, *modelFolder, string, error) {
	if variant != VariantAuto {
		if variant == VariantInt8 {
			if ok, what := int8CPU(); !ok {
				log.Warn("ort: running int8 on a CPU it is slow on", "why", what)
			}
		}
		e, err := newORTEmbedder(folder, lib, o.Threads, o.MaxBatch, o.NoFuse, log)
		return e, folder, "", err
	}
	return openAutoVariant(folder, lib, o, log)
}

// openAutoVariant runs model_int8.onnx when the folder has one that
// `lexsona model import` made with a rewrite measured to classify like
// float32 (int8Verdicts), the CPU has int8 instructions (int8CPU) and, on
// this machine, its vectors of int8Probes agree with model.onnx's
// (checkInt8); otherwise model.onnx. The string says which and why.
func openAutoVariant(fp32 *modelFolder, lib string, o Options, log *slog.Logger) (*ortEmbedder, *modelFolder, string, error) {
	fallback := func(why string) (*ortEmbedder, *modelFolder, string, error) {
		e, err := newORTEmbedder(fp32, lib, o.Threads, o.MaxBatch, o.NoFuse, log)
		return e, fp32, "fp32: " + why, err
	}
	q8, err := resolveModelFolder(fp32.Dir, VariantInt8)
	if err != nil {
		return fallback("the model folder has no " + modelimport.VariantFile(VariantInt8) + " (`lexsona model import` writes one)")
	}
	cpuOK, cpuWhat := int8CPU()
	if !cpuOK {
		return fallback(cpuWhat)
	}
	if why := untrustedInt8(q8); why != "" {
		return fallback(why)
	}
	e, err := newORTEmbedder(q8, lib, o.Threads, o.MaxBatch, true, log)
	if err != nil {
		return fallback("ONNX Runtime cannot run " + q8.Model + ": " + engine.ErrorMessage(err))
	}
	c, err := checkInt8(e, fp32, lib, o, cpuWhat)
	if err == nil && !c.ok() {
		err = fmt.Errorf("its vectors differ from model.onnx's on this machine: %s; want min >= %.2f and median >= %.2f", c, int8MinCosine, int8MedianCosine)
	}
	if err != nil {
		e.Close()
		return fallback(modelimport.VariantFile(VariantInt8) + ": " + err.Error())
	}
	return e, q8, fmt.Sprintf("int8: the CPU has %s and %s embeds like model.onnx here (%s)", cpuWhat, modelimport.VariantFile(VariantInt8), c), nil
}

// untrustedInt8 says why the int8 graph of folder is not one auto runs
// ("" when it is): import.json must list it with its sha256 and a rewrite
// int8Verdicts says classifies like float32.
func untrustedInt8(folder *modelFolder) string {
	p, err := modelimport.ReadProvenance(folder.Dir)
	if err != nil {
		return "no readable " + modelimport.ProvenanceFile + " says how " + filepath.Base(folder.Model) + " was made"
	}
	v := p.Variants[VariantInt8]
	if v == nil {
		return modelimport.ProvenanceFile + " does not list " + filepath.Base(folder.Model)
	}
	if sum, err := fileSHA256(folder.Model); err != nil || sum != v.SHA256 {
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

// int8Check is the outcome of comparing the int8 and float32 vectors of
// int8Probes, kept in the model folder's cache.
type int8Check struct {
	Texts    int     `json:"texts"`
	Min      float64 `json:"min_cosine"`
	Median   float64 `json:"median_cosine"`
	CPU      string  `json:"cpu"`
	ORT      string  `json:"onnxruntime"`
	Int8     string  `json:"int8_sha256"`
	FP32     string  `json:"fp32_sha256"`
	Measured string  `json:"measured_at"`
}

func (c int8Check) ok() bool { return c.Min >= int8MinCosine && c.Median >= int8MedianCosine }

func (c int8Check) String() string {
	return fmt.Sprintf("cosine with the float32 vectors min %.4f, median %.4f over %d probe texts", c.Min, c.Median, c.Texts)
}

// checkInt8 compares q8's vectors of int8Probes with fp32's. The result is
// kept in fp32's folder (fusedDirName), named by both files' sha256, the
// ONNX Runtime version and the CPU's instructions, so that it is measured
// once per machine; a cache that cannot be written only costs a recheck.
func checkInt8(q8 *ortEmbedder, fp32 *modelFolder, lib string, o Options, cpuWhat string) (int8Check, error) {
	sum, err := fileSHA256(fp32.Model)
	if err != nil {
		return int8Check{}, err
	}
	c := int8Check{CPU: cpuWhat, ORT: ortVersion(), Int8: q8.id.SHA256, FP32: sum}
	path := int8CheckPath(fp32.Dir, c)
	if b, err := os.ReadFile(path); err == nil {
		var kept int8Check
		if json.Unmarshal(b, &kept) == nil && kept.Texts > 0 && kept.Int8 == c.Int8 && kept.FP32 == c.FP32 {
			return kept, nil
		}
	}
	ref, err := newORTEmbedder(fp32, lib, o.Threads, o.MaxBatch, o.NoFuse, nil)
	if err != nil {
		return int8Check{}, err
	}
	defer ref.Close()
	want, err := ref.Embed(context.Background(), int8Probes)
	if err != nil {
		return int8Check{}, err
	}
	got, err := q8.Embed(context.Background(), int8Probes)
	if err != nil {
		return int8Check{}, err
	}
	cos := make([]float64, len(want))
	for i := range want {
		for k := range want[i] {
			cos[i] += float64(want[i][k]) * float64(got[i][k])
		}
	}
	slices.Sort(cos)
	c.Texts, c.Min, c.Median = len(cos), cos[0], cos[len(cos)/2]
	c.Measured = time.Now().UTC().Format(time.RFC3339)
	if b, err := json.MarshalIndent(c, "", "  "); err == nil {
		writeFileAtomic(path, append(b, '\n'))
	}
	return c, nil
}

// int8CheckPath is where checkInt8 keeps the check of c's files, ONNX
// Runtime version and CPU in the model folder dir.
func int8CheckPath(dir string, c int8Check) string {
	key := sha256.Sum256([]byte(c.CPU + "|" + c.ORT))
	return filepath.Join(dir, fusedDirName, fmt.Sprintf("int8-check-%s-%s-%s.json", c.Int8[:16], c.FP32[:16], hex.EncodeToString(key[:4])))
}

// describeVariant is the log attribute value naming the graph that runs.
func describeVariant(folder *modelFolder) string {
	if folder.Variant == "" {
		return VariantFP32
	}
	return folder.Variant
}
