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
	// stance, when set, reads the direction of every suggestion again
	// (see StanceModel); disagree counts the suggestions where it and the
	// rule-based reading differ.
	stance   *StanceModel
	disagree int
}

// newReplayer replays with clf and the inbox budget of cfg.
func newReplayer(clf *classifier.Classifier, cfg engine.Config) *replayer {
	return &replayer{clf: clf, share: cfg.InboxShare, min: cfg.InboxSessionMin}
}

// run replays items (each writer's prompts in order, a writer's open
// suggestions kept across its sessions, as one user's store keeps them)
// and returns what each became; reading gives an item's derived figures.
func (r *replayer) run(ctx context.Context, items []StreamItem, reading func(StreamItem) (DerivedPrompt, error)) ([]captured, error) {
	out := make([]captured, len(items))
	open := map[string][]classifier.Suggestion{} // by writer
	prompts := map[string]int{}                  // by session
	for i, it := range items {
		prompts[it.Session]++
		p, err := reading(it)
		if err != nil {
			return nil, err
		}
		out[i] = captured{action: memory.CaptureIgnored}
		switch p.Route {
		case RouteExplicit:
			r.explicit++
			continue
		case RouteIgnored:
			continue
		}
		cl, err := r.clf.CaptureReading(ctx, p.Reading, it.Scope())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.ID, err)
		}
		out[i].passed, out[i].judged = cl.Gate.Passed, true
		if !cl.Gate.Passed {
			continue
		}
		if cl.Decision == classifier.DecisionNewRule && len(cl.Candidates) == 0 && !cl.Learnable() {
			out[i].dropped = dropNoRule
			continue
		}
		if r.stance != nil && len(cl.Candidates) > 0 {
			if pol, ok := r.stance.Direction(p.Reading, cl); ok && pol != cl.Polarity {
				r.disagree++
			}
		}
		s := classifier.Suggestion{Project: it.Scope().Project, Polarity: cl.Polarity, Text: p.SHA256, Prob: cl.Gate.Prob, Frame: it.Session}
		if len(cl.Candidates) > 0 {
			s.TopRule = cl.Candidates[0].RuleID
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
		out[i].action, out[i].candidates, out[i].polarity = memory.CapturePending, cl.Candidates, cl.Polarity
	}
	return out, nil
}
