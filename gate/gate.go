// Package gate decides whether a prompt nobody marked as a correction is one:
// a correction or standing instruction about how the agent should work
// ("stop committing without asking", "we use pnpm here"), as opposed to a
// task, a question, pasted output or feedback on a result ("still failing").
// The hooks see every prompt a user types, and only a few in a hundred are
// corrections; the classifier behind the gate only says which rule a text
// is nearest to, so without the gate ordinary prompts that use a rule's
// words ("git commit", "add a placeholder image") would count as evidence.
//
// A gate is a logistic model over the prompt's sentence embedding (of the
// model it was trained for) and a few cue features of its wording (Cues);
// a cue-only model serves embedders it was not trained for; a joint gate
// also reads figures of the classifier's (Extras). The shipped weights
// (weights.json) are trained by `lexsona eval gate --write` on the dev
// split of eval/testdata/stream; the MiniLM gate's threshold was then chosen
// on the real corpus's train repositories (`go run ./eval/realprompts/derived
// -calibrate -write`); see eval/README.md for both and what they measure on
// the held-out sides.
package gate

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Model is one logistic gate: P(correction | text) = σ(w·[e; c; x] + b),
// with e the text's unit-length embedding (Dims values; none for a cue-only
// model), c its Cues and x the classifier's figures named by Extra (a
// joint gate; none for a gate of the text alone).
type Model struct {
	// ModelID is the embedder identity (models.Identity.ID) the embedding
	// weights belong to; "" for a cue-only model.
	ModelID string `json:"model_id"`
	Dims    int    `json:"dims"`
	// Weights holds Dims embedding weights, then one per cue, then one per
	// extra.
	Weights []float64 `json:"weights"`
	Cues    []string  `json:"cues"`
	// Extra names the classifier's figures a joint gate reads (Extras).
	Extra []string `json:"extra,omitempty"`
	Bias  float64  `json:"bias"`
	// Threshold is the probability from which a text is a correction.
	Threshold float64 `json:"threshold"`
	// Trained says what the model was trained on.
	Trained string `json:"trained,omitempty"`
}

// Set is the gates one build ships: one per embedder model they were
// trained for, and a cue-only one for any other.
type Set struct {
	Models []Model `json:"models"`
}

//go:embed weights.json
var shipped []byte

// Default returns the shipped gates. Errors: a weights file that does not
// decode or does not fit the cues of this build (a build error, caught by
// the package's tests).
func Default() (*Set, error) {
	var s Set
	if err := json.Unmarshal(shipped, &s); err != nil {
		return nil, fmt.Errorf("gate: shipped weights: %w", err)
	}
	return &s, s.Check()
}

// Check reports an error when a model's cues are not this build's
// (CueNames) or its weights do not fit its Dims and cues.
func (s *Set) Check() error {
	names := CueNames()
	for _, m := range s.Models {
		if !slices.Equal(m.Cues, names) {
			return fmt.Errorf("gate %q: trained on cues %v, this build has %v: retrain", m.ModelID, m.Cues, names)
		}
		for _, x := range m.Extra {
			if !slices.Contains(Extras, x) {
				return fmt.Errorf("gate %q: extra feature %q: this build has %v: retrain", m.ModelID, x, Extras)
			}
		}
		if len(m.Weights) != m.Dims+len(names)+len(m.Extra) {
			return fmt.Errorf("gate %q: %d weights for %d dims, %d cues and %d extras", m.ModelID, len(m.Weights), m.Dims, len(names), len(m.Extra))
		}
	}
	return nil
}

// For returns the gate trained for the embedder model modelID with dims
// dimensions, else the cue-only gate, else nil.
func (s *Set) For(modelID string, dims int) *Model {
	var cuesOnly *Model
	for i := range s.Models {
		m := &s.Models[i]
		if m.ModelID == modelID && m.Dims == dims && modelID != "" {
			return m
		}
		if m.Dims == 0 {
			cuesOnly = m
		}
	}
	return cuesOnly
}

// Prob is the probability that text, whose embedding is vec (unit length;
// ignored by a cue-only model), is a correction.
func (m *Model) Prob(vec []float32, text string) float64 { return m.ProbCues(vec, Cues(text)) }

// ProbCues is Prob for a text whose cues (Cues) were computed; a joint
// gate's extras count as 0.
func (m *Model) ProbCues(vec []float32, cues []float64) float64 { return m.ProbJoint(vec, cues, nil) }

// ProbJoint is the probability for a text with embedding vec, cues and the
// classifier's figures extra (by name; a missing one counts as 0).
func (m *Model) ProbJoint(vec []float32, cues []float64, extra map[string]float64) float64 {
	z := m.Bias
	for i := 0; i < m.Dims && i < len(vec); i++ {
		z += m.Weights[i] * float64(vec[i])
	}
	nc := len(m.Cues)
	for i, c := range cues {
		if i < nc && m.Dims+i < len(m.Weights) {
			z += m.Weights[m.Dims+i] * c
		}
	}
	for i, name := range m.Extra {
		if j := m.Dims + nc + i; j < len(m.Weights) {
			z += m.Weights[j] * extra[name]
		}
	}
	return sigmoid(z)
}

// Extras are the classifier's figures a joint gate may read: the top
// rule's score, its lead over the runner-up, and whether a clause gave it
// (1) rather than the whole text (0).
var Extras = []string{"top_score", "margin", "clause_won"}

// Passes reports whether probability p reaches the model's threshold.
func (m *Model) Passes(p float64) bool { return p >= m.Threshold }

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
