package eval

import (
	"context"
	"fmt"
	"slices"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// replayer sends prompts through the hook's capture decision from their
// readings, without a store: the gate, then one inbox suggestion with the
// top rule and direction (classifier.Admit: repeats merge, the session's
// budget drops the least likely), never evidence — what
// memory.Service.Capture does with a prompt past the gate (suggest).
type replayer struct {
	clf      *classifier.Classifier
	share    float64
	min      int
	explicit int // prompts in an explicit form (recorded as the user said, not the gate's business)
	// disagree counts the suggestions whose direction is unsure (the
	// learned stance and the rule-based reading differ).
	disagree int
}

// newReplayer replays with clf and the inbox budget of cfg.
func newReplayer(clf *classifier.Classifier, cfg engine.Config) *replayer {
	return &replayer{clf: clf, share: cfg.InboxShare, min: cfg.InboxSessionMin}
}

// judged is what the classifier made of one prompt, before the inbox: its
// route, the gate's verdict, what a suggestion of it would hold, and the
// features a gate or stance model reads.
type judged struct {
	route        string
	prob         float64
	passed       bool
	noRule       bool // new_rule, no candidate and nothing to learn: never a suggestion
	candidates   []engine.Candidate
	polarity     engine.Polarity
	vec          []float32
	clauseVecs   [][]float32
	cues         []float64
	extras       map[string]float64
	stance       classifier.StanceFeatures
	stanceOK     bool
	key          string // the prompt's identity for a suggestion with no rule
	disagreement bool   // the direction is unsure (classifier.Result.DirectionUnsure)
}

// judge classifies every item from its reading, with the classifier's
// gate.
func (r *replayer) judge(ctx context.Context, items []StreamItem, reading func(StreamItem) (DerivedPrompt, error)) ([]judged, error) {
	out := make([]judged, len(items))
	for i, it := range items {
		p, err := reading(it)
		if err != nil {
			return nil, err
		}
		j := &out[i]
		j.route, j.key = p.Route, p.SHA256
		if p.Route != RouteProse {
			if p.Route == RouteExplicit {
				r.explicit++
			}
			continue
		}
		cl, err := r.clf.CaptureReading(ctx, p.Reading, it.Scope())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.ID, err)
		}
		j.prob, j.passed = cl.Gate.Prob, cl.Gate.Passed
		j.noRule = cl.Decision == classifier.DecisionNewRule && len(cl.Candidates) == 0 && !cl.Learnable()
		j.candidates, j.polarity = cl.Candidates, cl.Polarity
		j.vec, j.cues, j.extras = p.Reading.Vector, p.Reading.Cues, cl.GateExtras()
		for _, c := range p.Reading.Clauses {
			j.clauseVecs = append(j.clauseVecs, c.Vector)
		}
		j.stance, j.stanceOK = cl.StanceFeatures()
		j.disagreement = cl.DirectionUnsure
	}
	return out, nil
}

// admit puts every judged prompt that passed through the inbox decision
// (a writer's open suggestions kept across its sessions, as one user's
// store keeps them) and returns what each became.
func (r *replayer) admit(items []StreamItem, js []judged) []captured {
	out := make([]captured, len(items))
	open := map[string][]classifier.Suggestion{} // by writer
	prompts := map[string]int{}                  // by session
	for i, it := range items {
		prompts[it.Session]++
		j := js[i]
		out[i] = captured{action: memory.CaptureIgnored, judged: j.route == RouteProse, passed: j.passed}
		if !j.passed {
			continue
		}
		if j.noRule {
			out[i].dropped = dropNoRule
			continue
		}
		s := classifier.Suggestion{Project: it.Scope().Project, Polarity: j.polarity, Text: j.key, Prob: j.prob, Frame: it.Session}
		if len(j.candidates) > 0 {
			s.TopRule = j.candidates[0].RuleID
		}
		budget, bounded := classifier.InboxBudget(r.share, r.min, prompts[it.Session], it.Session)
		a := classifier.Admit(open[it.Writer], s, budget, bounded)
		switch {
		case a.Merge >= 0:
			o := &open[it.Writer][a.Merge]
			o.Prob = max(o.Prob, s.Prob)
		case !a.Admitted:
			out[i].dropped = dropBudget
			continue
		case a.Replace >= 0:
			open[it.Writer] = slices.Delete(open[it.Writer], a.Replace, a.Replace+1)
			fallthrough
		default:
			open[it.Writer] = append(open[it.Writer], s)
		}
		out[i].action, out[i].candidates, out[i].polarity = memory.CapturePending, j.candidates, j.polarity
		if j.disagreement {
			r.disagree++
		}
	}
	return out
}

// run judges and admits items.
func (r *replayer) run(ctx context.Context, items []StreamItem, reading func(StreamItem) (DerivedPrompt, error)) ([]captured, error) {
	js, err := r.judge(ctx, items, reading)
	if err != nil {
		return nil, err
	}
	return r.admit(items, js), nil
}
