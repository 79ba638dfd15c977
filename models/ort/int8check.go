package ort

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/lexsona/lexsona/models"
)

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
func checkInt8(q8 *Embedder, fp32 *models.Folder, lib string, o models.Options, cpuWhat string) (int8Check, error) {
	sum, err := models.FileSHA256(fp32.Model)
	if err != nil {
		return int8Check{}, err
	}
	c := int8Check{CPU: cpuWhat, ORT: version(), Int8: q8.Identity().SHA256, FP32: sum}
	path := int8CheckPath(fp32.Dir, c)
	if b, err := os.ReadFile(path); err == nil {
		var kept int8Check
		if json.Unmarshal(b, &kept) == nil && kept.Texts > 0 && kept.Int8 == c.Int8 && kept.FP32 == c.FP32 {
			return kept, nil
		}
	}
	ref, err := newEmbedder(fp32, lib, o.Threads, o.MaxBatch, o.NoFuse, nil)
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
