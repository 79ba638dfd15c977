package gate

import "math"

// Example is one labelled prompt for Train: its embedding (unit length, or
// nil for a cue-only model), its text or its cues (Cues; when set, the
// text is not read), the classifier's figures of TrainOptions.Extra (a
// joint gate) and whether it is a correction.
type Example struct {
	Vec   []float32
	Text  string
	Cues  []float64
	Extra []float64
	Label bool
}

// TrainOptions configure Train. L2 is the ridge penalty on every weight
// but the bias; Iters the full-batch Adam steps; Rate the step size.
type TrainOptions struct {
	ModelID string
	Dims    int // 0: a cue-only model
	L2      float64
	Iters   int
	Rate    float64
	// PositiveWeight weighs the corrections' loss (1: as many as they are).
	PositiveWeight float64
	// Extra names the classifier's figures of a joint gate (Extras), given
	// by each Example's Extra in this order.
	Extra []string
}

// DefaultTrainOptions are the options the shipped gates were trained with.
func DefaultTrainOptions(modelID string, dims int) TrainOptions {
	return TrainOptions{ModelID: modelID, Dims: dims, L2: 1e-3, Iters: 1500, Rate: 0.05, PositiveWeight: 1}
}

// Train fits a logistic model to examples by full-batch gradient descent
// (Adam) on the weighted log loss plus the L2 penalty, starting from zero:
// the same examples always give the same model. The threshold is left at
// 0.5 for the caller to choose.
func Train(examples []Example, o TrainOptions) Model {
	nc := len(cues)
	n := o.Dims + nc + len(o.Extra)
	xs := make([][]float64, len(examples))
	for i, e := range examples {
		x := make([]float64, n)
		for j := 0; j < o.Dims && j < len(e.Vec); j++ {
			x[j] = float64(e.Vec[j])
		}
		c := e.Cues
		if c == nil {
			c = Cues(e.Text)
		}
		copy(x[o.Dims:o.Dims+nc], c)
		copy(x[o.Dims+nc:], e.Extra)
		xs[i] = x
	}
	w := make([]float64, n+1) // the last is the bias
	m, v := make([]float64, n+1), make([]float64, n+1)
	g := make([]float64, n+1)
	const b1, b2, eps = 0.9, 0.999, 1e-8
	var total float64
	for _, e := range examples {
		total += weightOf(e, o)
	}
	for it := 1; it <= o.Iters; it++ {
		clear(g)
		for i, x := range xs {
			z := w[n]
			for j, xj := range x {
				z += w[j] * xj
			}
			y := 0.0
			if examples[i].Label {
				y = 1
			}
			d := (sigmoid(z) - y) * weightOf(examples[i], o) / total
			for j, xj := range x {
				g[j] += d * xj
			}
			g[n] += d
		}
		for j := 0; j < n; j++ {
			g[j] += o.L2 * w[j]
		}
		c1, c2 := 1-math.Pow(b1, float64(it)), 1-math.Pow(b2, float64(it))
		for j := range w {
			m[j] = b1*m[j] + (1-b1)*g[j]
			v[j] = b2*v[j] + (1-b2)*g[j]*g[j]
			w[j] -= o.Rate * (m[j] / c1) / (math.Sqrt(v[j]/c2) + eps)
		}
	}
	return Model{ModelID: o.ModelID, Dims: o.Dims, Weights: w[:n], Cues: CueNames(), Extra: o.Extra, Bias: w[n], Threshold: 0.5}
}

func weightOf(e Example, o TrainOptions) float64 {
	if e.Label && o.PositiveWeight > 0 {
		return o.PositiveWeight
	}
	return 1
}
