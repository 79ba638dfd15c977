package eval

import (
	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// StanceReport is how the rule-based reading and the learned stance model
// read the direction of labelled corrections whose top candidate is their
// rule: on the held-out repositories, and cross-validated (GateFolds folds)
// over everything the model learns from.
type StanceReport struct {
	Learned  int          `json:"learned"`
	HeldOut  StanceCounts `json:"held_out"`
	CrossVal StanceCounts `json:"cross_validated"`
}

// StanceCounts count the prompts read, how many each reading got right,
// where the two disagree, and how many of those the model got right.
type StanceCounts struct {
	Prompts            int `json:"prompts"`
	Contradictions     int `json:"contradictions"`
	RuleRight          int `json:"rule_right"`
	ModelRight         int `json:"model_right"`
	Disagree           int `json:"disagree"`
	DisagreeModelRight int `json:"disagree_model_right"`
}

// stanceExamples are the judged prompts whose top candidate is their
// labelled rule, as stance examples (the direction matters only there).
func stanceExamples(items []StreamItem, js []judged) ([]StanceExample, []judged) {
	var ex []StanceExample
	var kept []judged
	for i, it := range items {
		j := js[i]
		if it.RuleID() == "" || !j.stanceOK || len(j.candidates) == 0 || j.candidates[0].RuleID != it.RuleID() {
			continue
		}
		ex = append(ex, StanceExample{Features: j.stance, Cues: j.cues, Contradicts: it.Contradicts()})
		kept = append(kept, j)
	}
	return ex, kept
}

// fitStance fits the stance model on the written and train prompts and
// reads the held-out ones.
func fitStance(train []StreamItem, jTrain []judged, written []StreamItem, jWritten []judged, test []StreamItem, jTest []judged) (*classifier.StanceModel, StanceReport) {
	exW, jW := stanceExamples(written, jWritten)
	exT, jT := stanceExamples(train, jTrain)
	all, jAll := append(exW, exT...), append(jW, jT...)
	var rep StanceReport
	rep.Learned = len(all)
	m := FitStance(all)
	if m == nil {
		return nil, rep
	}
	for f := 0; f < GateFolds; f++ {
		var in []StanceExample
		for i := range all {
			if i%GateFolds != f {
				in = append(in, all[i])
			}
		}
		fm := FitStance(in)
		for i := range all {
			if i%GateFolds == f && fm != nil {
				rep.CrossVal.add(fm, all[i], jAll[i].polarity)
			}
		}
	}
	exH, jH := stanceExamples(test, jTest)
	for i := range exH {
		rep.HeldOut.add(m, exH[i], jH[i].polarity)
	}
	return m, rep
}

// add counts example e, whose rule-based direction was pol.
func (c *StanceCounts) add(m *classifier.StanceModel, e StanceExample, pol engine.Polarity) {
	c.Prompts++
	if e.Contradicts {
		c.Contradictions++
	}
	ruleSays := pol == engine.Counter
	modelSays := m.Prob(e.Features, e.Cues) >= 0.5
	if ruleSays == e.Contradicts {
		c.RuleRight++
	}
	if modelSays == e.Contradicts {
		c.ModelRight++
	}
	if ruleSays != modelSays {
		c.Disagree++
		if modelSays == e.Contradicts {
			c.DisagreeModelRight++
		}
	}
}
