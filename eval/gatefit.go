package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"sort"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/gate"
	"github.com/lexsona/lexsona/models"
)

// GateFolds is how many session-grouped folds choose the gate's threshold.
const GateFolds = 5

// MaxOrdinaryPass is the share of ordinary dev prompts the gate may let
// through, out of fold: the threshold is the lowest that keeps to it.
const MaxOrdinaryPass = 0.02

// EmbedStream embeds each item's text as the classifier sees it when a
// hook captured it (capturedProse: cleaned, its prose only, redacted;
// classifier.EmbedInput), in batches.
func EmbedStream(ctx context.Context, emb models.Embedder, items []StreamItem, progress io.Writer) ([][]float32, error) {
	out := make([][]float32, 0, len(items))
	const batch = 32
	for i := 0; i < len(items); i += batch {
		var texts []string
		for _, it := range items[i:min(i+batch, len(items))] {
			prose, _ := capturedProse(it.Text)
			if prose == "" {
				prose = it.Text // never judged by the gate; embedded so that every item has a vector
			}
			texts = append(texts, classifier.EmbedInput(prose))
		}
		vs, err := emb.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
		if progress != nil && (i/batch)%20 == 19 {
			fmt.Fprintf(progress, "embedded %d/%d prompts\n", len(out), len(items))
		}
	}
	return out, nil
}

// GateFit is a gate fitted on the dev split: the model (trained on every dev
// item, its threshold chosen out of fold) and the out-of-fold probabilities
// of the dev items the threshold was chosen on.
type GateFit struct {
	Model gate.Model
	OOF   []float64
}

// FitGate trains a gate on items (the dev split) with vectors vecs (nil
// entries, or dims 0, for a cue-only gate): GateFolds models, each trained
// with one fold of sessions held out, score the held-out prompts; the
// threshold is the lowest probability at which at most MaxOrdinaryPass of
// ordinary prompts pass; the shipped model is then trained on all items.
func FitGate(items []StreamItem, vecs [][]float32, modelID string, dims int, trained string) GateFit {
	ex := make([]gate.Example, len(items))
	for i, it := range items {
		// The cues are read from the prose with its lines, as the
		// classifier reads them when it serves (classifier.Reading.Cues).
		prose, _ := capturedProse(it.Text)
		ex[i] = gate.Example{Text: prose, Label: it.IsCorrection()}
		if dims > 0 {
			ex[i].Vec = vecs[i]
		}
	}
	opts := gate.DefaultTrainOptions(modelID, dims)
	oof := make([]float64, len(items))
	for f := 0; f < GateFolds; f++ {
		var train []gate.Example
		for i, it := range items {
			if sessionFold(it.Session) != f {
				train = append(train, ex[i])
			}
		}
		m := gate.Train(train, opts)
		for i, it := range items {
			if sessionFold(it.Session) == f {
				oof[i] = m.Prob(ex[i].Vec, ex[i].Text)
			}
		}
	}
	thr := chooseGateThreshold(items, oof, MaxOrdinaryPass)
	m := gate.Train(ex, opts)
	m.Threshold, m.Trained = thr, trained
	return GateFit{Model: m, OOF: oof}
}

// sessionFold assigns a session to one of GateFolds folds by a hash of its
// name, so a session's prompts are never split across folds.
func sessionFold(session string) int {
	h := fnv.New32a()
	h.Write([]byte(session))
	return int(h.Sum32() % GateFolds)
}

// chooseGateThreshold is the lowest probability (to 3 decimals) at which at
// most maxPass of the ordinary items' probabilities reach it.
func chooseGateThreshold(items []StreamItem, probs []float64, maxPass float64) float64 {
	var ord []float64
	for i, it := range items {
		if !it.IsCorrection() {
			ord = append(ord, probs[i])
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(ord)))
	allowed := int(maxPass * float64(len(ord)))
	if allowed >= len(ord) {
		return 0
	}
	// Just above the (allowed+1)-th highest ordinary probability.
	t := ord[allowed] + 1e-9
	return float64(int(t*1000+0.999999)) / 1000
}
