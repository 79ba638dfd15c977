package store

import (
	"crypto/sha256"
	"encoding/hex"
	"math"

	"github.com/lexsona/lexsona/engine"
)

// TextSHA256 is the hex sha256 of a text, the key of a rule text and of
// its stored embeddings.
func TextSHA256(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// validateFloat reports an EINVALID error unless v is finite and at least min.
func validateFloat(field string, v, min float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < min {
		return engine.Errorf(engine.EINVALID, "%s %v: want a finite number ≥ %g", field, v, min)
	}
	return nil
}
