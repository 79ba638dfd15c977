package classifier

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// Calibration is the file `lexsona eval calibrate` writes for one model
// identity: the bands it chose from labelled data, plus whatever the harness
// wants to keep next to them (targets, ECE, the score → P(correct) mapping) in
// Details. Unknown keys are ignored when reading, so the harness may add more.
type Calibration struct {
	Model      string          `json:"model"`    // models.Identity.ID() the thresholds are for
	Embedder   string          `json:"embedder"` // backend that produced the scores, informative
	Thresholds Thresholds      `json:"thresholds"`
	CreatedAt  *time.Time      `json:"created_at,omitempty"`
	Dataset    string          `json:"dataset,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
}

// Validate returns an EINVALID error when the model is missing or the
// thresholds are out of range.
func (c Calibration) Validate() error {
	if strings.TrimSpace(c.Model) == "" {
		return engine.Errorf(engine.EINVALID, "calibration has no model identity")
	}
	return c.Thresholds.Validate()
}

// CalibrationFileName is the file name a model's calibration has in a
// calibration directory: the identity ID with every character other than
// letters, digits, '.', '_' and '-' replaced by '_', plus ".json"
// (e.g. "all-MiniLM-L6-v2_0123456789abcdef.json").
func CalibrationFileName(modelID string) string {
	b := []byte(modelID)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	name := strings.TrimLeft(string(b), ".")
	if name == "" {
		name = "model"
	}
	return name + ".json"
}

// LoadCalibration reads and validates a calibration file. A missing file is
// an ENOTFOUND error naming the path; unreadable JSON or bad thresholds are
// EINVALID errors naming the path.
func LoadCalibration(path string) (Calibration, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Calibration{}, engine.Errorf(engine.ENOTFOUND, "calibration file %s does not exist", path)
	}
	if err != nil {
		return Calibration{}, engine.Errorf(engine.EINVALID, "calibration file %s cannot be read: %v", path, err)
	}
	var c Calibration
	if err := json.Unmarshal(data, &c); err != nil {
		return Calibration{}, engine.Errorf(engine.EINVALID, "calibration file %s is not valid JSON: %v", path, err)
	}
	if err := c.Validate(); err != nil {
		return Calibration{}, engine.Errorf(engine.EINVALID, "calibration file %s: %s", path, engine.ErrorMessage(err))
	}
	return c, nil
}

// WriteCalibration validates c and writes it to path (creating the directory),
// atomically: a reader sees the old file or the new one, never half of it.
// Invalid content is an EINVALID error and writes nothing.
func WriteCalibration(path string, c Calibration) error {
	if err := c.Validate(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".calibration-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Threshold sources, as reported by Classifier.Thresholds.
const (
	SourceOptions     = "options"
	SourceCalibration = "calibration"
	SourceDefault     = "default"
)

// resolveThresholds applies the precedence explicit options > calibration file
// > defaults. The calibration file is opts.CalibrationFile when set (it must
// exist and be for id), else <dir>/<CalibrationFileName(id)> in
// opts.CalibrationDir when set (absent is fine there); with neither, no file
// is read.
// It returns the thresholds, their source ("options", "calibration:<path>" or
// "default") and an EINVALID/ENOTFOUND error for a bad file.
func resolveThresholds(opts Options, id models.Identity) (Thresholds, string, error) {
	if opts.Thresholds != nil {
		if err := opts.Thresholds.Validate(); err != nil {
			return Thresholds{}, "", err
		}
		return *opts.Thresholds, SourceOptions, nil
	}
	path, required := opts.CalibrationFile, true
	if path == "" {
		required = false
		if dir := opts.CalibrationDir; dir != "" {
			path = filepath.Join(dir, CalibrationFileName(id.ID()))
		}
	}
	if path != "" {
		c, err := LoadCalibration(path)
		switch {
		case err == nil:
			if c.Model != id.ID() {
				return Thresholds{}, "", engine.Errorf(engine.EINVALID, "calibration file %s is for model %s, not %s", path, c.Model, id.ID())
			}
			return c.Thresholds, SourceCalibration + ":" + path, nil
		case required || engine.ErrorCode(err) != engine.ENOTFOUND:
			return Thresholds{}, "", err
		}
	}
	return DefaultThresholds(id), SourceDefault, nil
}
