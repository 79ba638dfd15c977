package classifier

import (
	"context"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
)

// GateResult is what the correction gate said of a text nobody marked as a
// correction (see Capture): the probability that it is one, the threshold
// it was held to, whether it passed, and which gate decided ("embedding" for
// the gate trained for the embedder's model, "cues" for the cue-only one,
// "explicit" for a CORRECT[rule_id]: text, which bypasses it).
type GateResult struct {
	Prob      float64 `json:"prob"`
	Threshold float64 `json:"threshold"`
	Passed    bool    `json:"passed"`
	Gate      string  `json:"gate"`
}

// Gate kinds of GateResult.Gate.
const (
	GateEmbedding = "embedding"
	GateCues      = "cues"
	GateExplicit  = "explicit"
)

// Capture is Decide for free text that nobody marked as a correction — a
// prompt a hook saw: the text is classified as Decide does, then the
// correction gate (Options.Gates, else the shipped gates) judges whether it
// is a correction or standing instruction at all, and the result carries
// its verdict in Gate. A CORRECT[rule_id]: text passes. The caller acts
// only on a text that passed. Errors: Decide's, and EINTERNAL for shipped
// gate weights that do not fit this build.
func (c *Classifier) Capture(ctx context.Context, text string, scope engine.Scope) (Classification, error) {
	cl, err := c.classify(ctx, text, scope, "", false, true)
	if err != nil {
		return cl, err
	}
	if cl.Gate, err = c.judge(&cl); err != nil {
		return cl, err
	}
	if err := c.unsureDirection(&cl); err != nil {
		return cl, err
	}
	return cl, c.propose(ctx, text, &cl, cl.Gate.Passed)
}

// CaptureReading is Capture for a text already read (Read), or for a
// Reading kept without its text (eval's derived figures): the same
// decision and gate verdict, but no candidate rule is named (that needs
// the text). scope is normalised here. Errors: EINVALID for a bad scope, a
// reading of another embedder model or a hybrid classifier (which needs
// the text); the corpus's; a configuration error of the classifier.
func (c *Classifier) CaptureReading(ctx context.Context, r Reading, scope engine.Scope) (Classification, error) {
	var cl classified
	if c.err != nil {
		return cl, c.err
	}
	s, err := engine.ParseScope(scope)
	if err != nil {
		return cl, err
	}
	cl.scope, cl.capture = s, true
	id := c.emb.Identity()
	cl.Embedder, cl.Model, cl.Polarity = c.emb.Backend(), id.ID(), engine.Reinforce
	switch {
	case r.Model != cl.Model:
		return cl, engine.Errorf(engine.EINVALID, "a reading of model %s, the classifier embeds with %s", r.Model, cl.Model)
	case c.opts.Lexical != nil:
		return cl, engine.Errorf(engine.EINVALID, "hybrid scoring reads the text itself, not a kept reading")
	}
	if cl.Thresholds, _, err = c.thresholdsFor(id, cl.Model); err != nil {
		return cl, err
	}
	snap := c.current(ctx, cl.Model, "")
	sn, err := snap.wait()
	if err != nil {
		return cl, err
	}
	c.decide(sn, &cl, &r, false)
	if cl.Gate, err = c.judge(&cl); err != nil {
		return cl, err
	}
	return cl, c.unsureDirection(&cl)
}

// judge is the correction gate's verdict on cl.
func (c *Classifier) judge(cl *Classification) (*GateResult, error) {
	if cl.Decision == DecisionExplicit {
		return &GateResult{Prob: 1, Passed: true, Gate: GateExplicit}, nil
	}
	set, err := c.gates()
	if err != nil {
		return nil, err
	}
	m := set.For(c.emb.Identity().ID(), cl.vec.dims())
	if m == nil {
		return &GateResult{Passed: true, Gate: GateCues}, nil
	}
	kind, vec := GateCues, []float32(nil)
	if m.Dims > 0 {
		kind, vec = GateEmbedding, cl.vec.vector()
	}
	p := m.ProbJoint(vec, cl.cues, cl.GateExtras())
	return &GateResult{Prob: p, Threshold: m.Threshold, Passed: m.Passes(p), Gate: kind}, nil
}

// gates returns Options.Gates, else the shipped gates.
func (c *Classifier) gates() (*gate.Set, error) {
	if c.opts.Gates != nil {
		return c.opts.Gates, nil
	}
	return gate.Default()
}

// GateExtras are the classifier's figures a joint gate reads (gate.Extras).
func (cl *Classification) GateExtras() map[string]float64 {
	x := map[string]float64{"top_score": cl.best[0], "margin": cl.best[0] - cl.best[1]}
	if cl.clauseWon {
		x["clause_won"] = 1
	}
	return x
}
