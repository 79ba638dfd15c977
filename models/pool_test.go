package models_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

func TestMeanPool(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name     string
		hidden   []float32 // [seq][2]
		mask     []int64
		want     []float32
		wantCode string
	}{
		{"one token", []float32{3, 4}, []int64{1}, []float32{0.6, 0.8}, ""},
		{"mean of two", []float32{1, 0, 0, 1}, []int64{1, 1}, []float32{float32(math.Sqrt2 / 2), float32(math.Sqrt2 / 2)}, ""},
		{"padding ignored", []float32{0, 2, 99, -99}, []int64{1, 0}, []float32{0, 1}, ""},
		{"NaN", []float32{nan, 1}, []int64{1}, nil, engine.EINTERNAL},
		{"Inf", []float32{inf, 1}, []int64{1}, nil, engine.EINTERNAL},
		{"masked NaN ignored", []float32{1, 0, nan, nan}, []int64{1, 0}, []float32{1, 0}, ""},
		{"zero norm", []float32{1, -1, -1, 1}, []int64{1, 1}, nil, engine.EINTERNAL},
		{"no tokens", []float32{1, 1}, []int64{0}, nil, engine.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := models.MeanPool(tt.hidden, tt.mask, 2, 7)
			if tt.wantCode != "" {
				modeltest.WantErr(t, err, tt.wantCode, "text 7")
				if got != nil {
					t.Errorf("got a vector %v with the error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-7)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
