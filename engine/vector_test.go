package engine

import (
	"math"
	"testing"
)

func TestCheckVector(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    []float32
		dims int
		ok   bool
	}{
		{"unit", []float32{0.6, 0.8}, 2, true},
		{"any length", []float32{0.6, 0.8}, 0, true},
		{"empty", nil, 0, false},
		{"wrong length", []float32{1}, 2, false},
		{"NaN", []float32{float32(math.NaN()), 1}, 2, false},
		{"Inf", []float32{float32(math.Inf(1)), 1}, 0, false},
	} {
		err := CheckVector(tc.v, tc.dims)
		if (err == nil) != tc.ok || (err != nil && ErrorCode(err) != EINVALID) {
			t.Errorf("%s: CheckVector = %v, want ok %v (else EINVALID)", tc.name, err, tc.ok)
		}
	}
}
