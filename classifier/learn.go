package classifier

import (
	"context"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Learnable reports whether a rule can be proposed from cl: it is new_rule
// and neither a text the guard found generic (no informative word) nor a
// counterexample (a candidate would turn it into a reinforcement of what it
// takes back). For every other decision it is false.
func (cl *Classification) Learnable() bool {
	return cl.Decision == DecisionNewRule && !strings.HasPrefix(cl.Reason, ReasonGeneric) && cl.Polarity != engine.Counter
}

// UnlearnableReason says why nothing can be learned from a new_rule cl that
// is not Learnable.
func (cl *Classification) UnlearnableReason() string {
	if strings.HasPrefix(cl.Reason, ReasonGeneric) {
		return "nothing was recorded: no rule can be learned from it (ask the user what was wrong)"
	}
	return "nothing was recorded: the counterexample matches no rule, so there is no rule to count it against"
}

// JoinReasons joins the non-empty reasons with "; ".
func JoinReasons(a, b string) string { return joinReasons(a, b) }

// TextVectors are a rule text's vectors under the classifier's embedders,
// computed before a write transaction so that no embedding runs while the
// write lock is held. LexModel and LexVector are empty unless scoring is
// hybrid.
type TextVectors struct {
	Text      string
	Model     string
	Vector    []float32
	LexModel  string
	LexVector []float32
}

// CandidateText is the text a candidate rule proposed from a correction gets
// (engine.NewCandidateRule's).
func CandidateText(text string) string {
	return strings.TrimSpace(engine.NewCandidateRule(text, "", engine.Scope{}, engine.DefaultConfig(), time.Unix(0, 0)).Text)
}

// Vectors embeds a rule's text with the classifier's embedders, reusing
// from's vectors when from embedded exactly text with the same models (from
// may be nil). Errors: the embedders'.
func (c *Classifier) Vectors(ctx context.Context, text string, from *Classification) (TextVectors, error) {
	if c.err != nil {
		return TextVectors{}, c.err
	}
	p := TextVectors{Text: text, Model: c.emb.Identity().ID()}
	if c.opts.Lexical != nil {
		p.LexModel = c.opts.Lexical.Identity().ID()
	}
	var err error
	if from != nil && from.input == p.Text && from.Model == p.Model {
		p.Vector = from.vec.vector()
	}
	if p.Vector == nil {
		if p.Vector, err = embedOne(ctx, c.emb, p.Text); err != nil {
			return p, err
		}
	}
	if p.LexModel == "" {
		return p, nil
	}
	if from != nil && from.input == p.Text && from.lexID == p.LexModel {
		p.LexVector = from.lexVec.vector()
	}
	if p.LexVector == nil {
		if p.LexVector, err = embedOne(ctx, c.opts.Lexical, p.Text); err != nil {
			return p, err
		}
	}
	return p, nil
}

// propose names the candidate rule a Learnable cl proposes
// (engine.ProposedRuleID: cl.RuleID) and, with vectors, sets cl.Proposal to
// its text (CandidateText) and vectors. Errors: the embedders'.
func (c *Classifier) propose(ctx context.Context, text string, cl *Classification, vectors bool) error {
	if !cl.Learnable() {
		return nil
	}
	if vectors {
		p, err := c.Vectors(ctx, CandidateText(text), cl)
		if err != nil {
			return err
		}
		cl.Proposal = &p
	}
	cl.RuleID = engine.ProposedRuleID(text)
	return nil
}

// Err returns the configuration error every call returns (nil when the
// options are valid).
func (c *Classifier) Err() error { return c.err }
