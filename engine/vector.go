package engine

import "math"

// CheckVector is nil when v is a usable embedding: non-empty, every value
// finite, and dims values long (dims 0: any length). Errors: EINVALID
// saying which of these v is not.
func CheckVector(v []float32, dims int) error {
	if len(v) == 0 {
		return Errorf(EINVALID, "embedding vector is empty")
	}
	if dims > 0 && len(v) != dims {
		return Errorf(EINVALID, "embedding has %d dimensions: the model's stored vectors have %d", len(v), dims)
	}
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return Errorf(EINVALID, "embedding vector has a NaN or infinite value")
		}
	}
	return nil
}
