package eval

import (
	"encoding/json"
	"time"

	"github.com/lexsona/lexsona/classifier"
)

// CalibrationDetails is what a calibration file keeps in Details next to the
// thresholds: how they were chosen and how they did on held-out data.
type CalibrationDetails struct {
	Registry string            `json:"registry"`
	Counts   map[string]int    `json:"counts"`
	Guard    classifier.Guard  `json:"guard"`
	Report   CalibrationReport `json:"calibration"`
}

// CalibrationFile returns the calibration file content for r's model: the
// thresholds r.Calibration chose, stamped with now, and the calibration's
// details. classifier.WriteCalibration writes it; the classifier then uses
// those thresholds for that model identity. Errors: EINVALID when the
// thresholds are out of range (they never are when chosen by Calibrate).
func CalibrationFile(r Report, now time.Time) (classifier.Calibration, error) {
	details, err := json.Marshal(CalibrationDetails{Registry: r.Registry, Counts: r.Counts, Guard: r.Guard, Report: r.Calibration})
	if err != nil {
		return classifier.Calibration{}, err
	}
	at := now.UTC().Truncate(time.Second)
	c := classifier.Calibration{Model: r.Model, Embedder: r.Embedder, Thresholds: r.Calibration.Thresholds,
		CreatedAt: &at, Dataset: r.Dataset, Details: details}
	return c, c.Validate()
}
