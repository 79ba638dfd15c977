package classifier

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
)

// StanceFeatures are what the rule-based polarity reading of a
// classification rests on, for its top candidate: the stance its sides
// read (+1 support, −1 contradict, 0 none), the cue in the wording of the
// part the stance is read from, whether that part insists on a rule,
// whether the text reverses one of the rule's preferences, and the lean
// towards the rule's contrary phrasings (LeanKnown false: the rule has
// none). A learned stance model (eval.StanceModel) reads them.
type StanceFeatures struct {
	Side      int
	Cue       CueKind
	Insists   bool
	Reversed  bool
	Lean      float64
	LeanKnown bool
}

// StanceFeatures returns cl's; ok is false when cl has no candidate (no
// stance to read).
func (cl *Classification) StanceFeatures() (StanceFeatures, bool) {
	if len(cl.Candidates) == 0 || cl.stance == nil {
		return StanceFeatures{}, false
	}
	f := StanceFeatures{Cue: cl.stance.Cue.Kind, Insists: cl.stance.Insists, Reversed: cl.evidence.reversal != ""}
	if st, ok := cl.stance.Sides[cl.Candidates[0].RuleID]; ok {
		f.Side = 1
		if st.Polarity == engine.Counter {
			f.Side = -1
		}
	}
	f.Lean, f.LeanKnown = cl.evidence.Lean()
	return f, true
}

// StanceModel is a learned reading of a captured prompt's direction: a
// logistic model of P(the text contradicts its top rule) over the
// StanceFeatures and the gate's cues (StanceFeatureNames). It does not
// replace the rule-based reading: where the two disagree, the suggestion
// says its direction is unsure (Result.DirectionUnsure) and the user
// chooses. Fitted by eval.CalibrateReal (`go run ./eval/realprompts/derived
// -calibrate -write`) on the labelled stances of the written stream's dev
// split and the real corpus's train repositories.
type StanceModel struct {
	Features []string  `json:"features"`
	Weights  []float64 `json:"weights"` // the bias first, then one per feature
	Trained  string    `json:"trained,omitempty"`
}

// StanceFeatureNames are a stance model's features, in order: the
// rule-based reading's, then the gate's cues.
func StanceFeatureNames() []string {
	names := []string{"side_support", "side_contradict", "cue_constraint", "cue_dismissal", "cue_permission", "cue_retraction", "cue_reversal",
		"insists", "reversed", "lean", "lean_known"}
	return append(names, gate.CueNames()...)
}

// StanceRow is a stance model's input for f and cues, the constant 1 first.
func StanceRow(f StanceFeatures, cues []float64) []float64 {
	x := []float64{1, b2f(f.Side > 0), b2f(f.Side < 0)}
	for _, k := range []CueKind{CueConstraint, CueDismissal, CuePermission, CueRetraction, CueReversal} {
		x = append(x, b2f(f.Cue == k))
	}
	x = append(x, b2f(f.Insists), b2f(f.Reversed))
	if f.LeanKnown {
		x = append(x, f.Lean, 1)
	} else {
		x = append(x, 0, 0)
	}
	return append(x, cues...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Prob is P(contradicts) for f and cues.
func (m *StanceModel) Prob(f StanceFeatures, cues []float64) float64 {
	z := 0.0
	for j, v := range StanceRow(f, cues) {
		if j < len(m.Weights) {
			z += m.Weights[j] * v
		}
	}
	return 1 / (1 + math.Exp(-z))
}

// Check reports an error unless the model's features are this build's
// and it has a weight for each and the bias.
func (m *StanceModel) Check() error {
	if names := StanceFeatureNames(); !slices.Equal(m.Features, names) || len(m.Weights) != len(names)+1 {
		return fmt.Errorf("stance model: %d weights for features %v, this build has %v: refit", len(m.Weights), m.Features, names)
	}
	return nil
}

//go:embed stance.json
var shippedStance []byte

var defaultStance = sync.OnceValues(func() (*StanceModel, error) {
	var m StanceModel
	if err := json.Unmarshal(shippedStance, &m); err != nil {
		return nil, fmt.Errorf("classifier: shipped stance model: %w", err)
	}
	if len(m.Weights) == 0 {
		return nil, nil
	}
	return &m, m.Check()
})

// DefaultStance is the shipped stance model (nil when the shipped file
// holds none: no direction is then marked unsure). Errors: a file that
// does not decode or fit this build (a build error, caught by the tests).
func DefaultStance() (*StanceModel, error) { return defaultStance() }

// unsureDirection marks cl's direction unsure when the stance model reads
// it the other way.
func (c *Classifier) unsureDirection(cl *Classification) error {
	m := c.opts.Stance
	if m == nil {
		var err error
		if m, err = DefaultStance(); err != nil {
			return err
		}
	}
	f, ok := cl.StanceFeatures()
	if m == nil || !ok || cl.Decision == DecisionExplicit {
		return nil
	}
	if learned := m.Prob(f, cl.cues) >= 0.5; learned != (cl.Polarity == engine.Counter) {
		cl.DirectionUnsure = true
		way := "insists on"
		if learned {
			way = "takes back"
		}
		cl.Reason = joinReasons(cl.Reason, fmt.Sprintf("direction unsure: the learned stance reads that the text %s %s", way, cl.Candidates[0].RuleID))
	}
	return nil
}
