package gate

import (
	"math"
	"testing"
)

// The shipped weights fit this build's cues and hold a cue-only gate for
// embedders no gate was trained for.
func TestDefaultSet(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if m := s.For("some-other-model@0000", 384); m == nil || m.Dims != 0 {
		t.Fatalf("an unknown model gets %+v, want the cue-only gate", m)
	}
	for _, m := range s.Models {
		if m.Threshold <= 0 || m.Threshold >= 1 {
			t.Errorf("gate %q threshold %v", m.ModelID, m.Threshold)
		}
	}
}

// The cue-only gate tells a standing instruction from a task by wording.
func TestCueOnlyGateOrdersPrompts(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	m := s.For("", 0)
	correction := m.Prob(nil, "I told you to stop committing without asking me first, don't do it again")
	task := m.Prob(nil, "can you add a commit hook that runs the linter")
	paste := m.Prob(nil, "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@18.2.0")
	if !(correction > task && correction > paste) {
		t.Errorf("P(correction) %.3f, P(task) %.3f, P(paste) %.3f: want the correction highest", correction, task, paste)
	}
}

// Training on separable examples learns to separate them, the same way
// every time.
func TestTrainSeparates(t *testing.T) {
	var ex []Example
	for i := 0; i < 20; i++ {
		ex = append(ex, Example{Vec: []float32{1, 0}, Text: "stop doing that, I told you never to", Label: true},
			Example{Vec: []float32{0, 1}, Text: "add a button to the page", Label: false})
	}
	o := DefaultTrainOptions("m@1", 2)
	a, b := Train(ex, o), Train(ex, o)
	if a.Prob([]float32{1, 0}, ex[0].Text) < 0.9 || a.Prob([]float32{0, 1}, ex[1].Text) > 0.1 {
		t.Errorf("not separated: %v", a.Weights)
	}
	for i := range a.Weights {
		if math.Abs(a.Weights[i]-b.Weights[i]) > 0 {
			t.Fatalf("training is not deterministic at weight %d", i)
		}
	}
}

// A joint gate reads the classifier's figures by name after the cues, and
// a gate naming a figure this build does not have is refused.
func TestJointGate(t *testing.T) {
	nc := len(CueNames())
	w := make([]float64, nc+1)
	w[nc] = 4 // top_score
	m := Model{Weights: w, Cues: CueNames(), Extra: []string{"top_score"}, Threshold: 0.5}
	cues := make([]float64, nc)
	low, high := m.ProbJoint(nil, cues, map[string]float64{"top_score": 0}), m.ProbJoint(nil, cues, map[string]float64{"top_score": 1})
	if !(low == 0.5 && high > 0.98) {
		t.Errorf("P at top score 0 = %v, at 1 = %v", low, high)
	}
	if err := (&Set{Models: []Model{m}}).Check(); err != nil {
		t.Errorf("a joint gate of this build: %v", err)
	}
	m.Extra = []string{"unknown"}
	if err := (&Set{Models: []Model{m}}).Check(); err == nil {
		t.Errorf("a gate with an unknown extra passed the check")
	}
}
