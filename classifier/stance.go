package classifier

import "github.com/lexsona/lexsona/engine"

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
