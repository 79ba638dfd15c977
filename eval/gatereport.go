package eval

import (
	"context"
	"fmt"
	"io"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
	"github.com/lexsona/lexsona/models"
)

// RealCorrectionShare is the share of typed prompts that corrected the
// agent in the public transcripts read for the stream dataset
// (testdata/stream/FACTS.md): the base rate at which GateReport also states
// the gate's precision.
const RealCorrectionShare = 0.034

// GateMeasure is one gate on one split: how many prompts of each kind it
// let through, and what follows for precision.
type GateMeasure struct {
	Gate        string  `json:"gate"`
	Split       string  `json:"split"`
	Threshold   float64 `json:"threshold"`
	Ordinary    int     `json:"ordinary"`
	OrdPassed   int     `json:"ordinary_passed"`
	Corrections int     `json:"corrections"`
	CorrPassed  int     `json:"corrections_passed"`
	Precision   float64 `json:"precision"`
	Recall      float64 `json:"recall"`
	// PrecisionReal is the precision at RealCorrectionShare corrections.
	PrecisionReal float64 `json:"precision_at_real_share"`
}

// GateReport is the gate's figures: the models fitted on dev and their
// measures on dev (out of fold) and on the held-out test split.
type GateReport struct {
	Models   []gate.Model  `json:"-"`
	Measures []GateMeasure `json:"measures"`
}

// RunGate embeds the stream with emb, fits the embedding gate and the
// cue-only gate on the dev split, and measures both on dev (out of fold)
// and test.
func RunGate(ctx context.Context, emb models.Embedder, items []StreamItem, progress io.Writer) (GateReport, error) {
	dev, test := SplitStream(items, "dev"), SplitStream(items, "test")
	all := append(append([]StreamItem{}, dev...), test...)
	vecs, err := EmbedStream(ctx, emb, all, progress)
	if err != nil {
		return GateReport{}, err
	}
	devVecs, testVecs := vecs[:len(dev)], vecs[len(dev):]
	id := emb.Identity()
	trained := fmt.Sprintf("dev split of %s (%d prompts, writers other than %v), %s", ShippedStreamName, len(dev), StreamTestWriters, id.ID())
	var rep GateReport
	for _, g := range []struct {
		name string
		dims int
		id   string
	}{{"embedding+cues", id.Dims, id.ID()}, {"cues only", 0, ""}} {
		fit := FitGate(dev, devVecs, g.id, g.dims, trained)
		rep.Models = append(rep.Models, fit.Model)
		rep.Measures = append(rep.Measures, measureGate(g.name, "dev (out of fold)", dev, fit.OOF, fit.Model.Threshold))
		probs := make([]float64, len(test))
		for i, it := range test {
			probs[i] = fit.Model.Prob(testVecs[i], cleanOf(it.Text))
		}
		rep.Measures = append(rep.Measures, measureGate(g.name, "test", test, probs, fit.Model.Threshold))
	}
	return rep, nil
}

func measureGate(name, split string, items []StreamItem, probs []float64, thr float64) GateMeasure {
	m := GateMeasure{Gate: name, Split: split, Threshold: thr}
	for i, it := range items {
		pass := probs[i] >= thr
		if it.IsCorrection() {
			m.Corrections++
			if pass {
				m.CorrPassed++
			}
		} else {
			m.Ordinary++
			if pass {
				m.OrdPassed++
			}
		}
	}
	m.Precision = ratio(m.CorrPassed, m.CorrPassed+m.OrdPassed)
	m.Recall = ratio(m.CorrPassed, m.Corrections)
	fpr := ratio(m.OrdPassed, m.Ordinary)
	if d := m.Recall*RealCorrectionShare + fpr*(1-RealCorrectionShare); d > 0 {
		m.PrecisionReal = m.Recall * RealCorrectionShare / d
	}
	return m
}

// WriteGateText prints the gate's measures as a table.
func WriteGateText(w io.Writer, rep GateReport) {
	fmt.Fprintf(w, "%-15s %-18s %9s %16s %18s %9s %7s %15s\n", "gate", "split", "threshold", "ordinary passed", "corrections passed", "precision", "recall", "precision@3.4%")
	for _, m := range rep.Measures {
		fmt.Fprintf(w, "%-15s %-18s %9.3f %9d/%-6d %11d/%-6d %9.3f %7.3f %15.3f\n", m.Gate, m.Split, m.Threshold,
			m.OrdPassed, m.Ordinary, m.CorrPassed, m.Corrections, m.Precision, m.Recall, m.PrecisionReal)
	}
}

func cleanOf(text string) string {
	s, _ := engine.CleanText(text)
	return s
}
