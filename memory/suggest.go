package memory

import (
	"fmt"
	"math"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// suggest is what a captured prompt past the gate becomes: one inbox
// suggestion — a pending confirmation with the classifier's candidates,
// in any band (its nearest rule first; none when no rule scores above the
// candidate floor and the text could become a rule of its own) and the
// direction the classifier read — and never evidence or a candidate rule. The user accepts it, flips its direction,
// sends it to "new rule" or rejects it (Confirm).
//
// A prompt that repeats an open suggestion of the same project — the same
// top rule and direction, or for a new-rule suggestion the same text —
// raises that suggestion's count (engine.Pending.Seen) instead of adding
// one. Past the session's budget (sessionBudget) of open suggestions, the
// least likely (by the gate's probability) gives way to a more likely one,
// or the new one is dropped (resp.Reason says so).
func suggest(tx *store.Tx, c engine.Correction, cl *classifier.Classification, resp *RecordResponse) error {
	// Below the confirm band the candidates still say which rule the
	// prompt is nearest: the user accepts it, or sends it to a new rule.
	cands := cl.Candidates
	if cl.Decision == classifier.DecisionNewRule && len(cands) == 0 && !cl.Learnable() {
		resp.Reason = classifier.JoinReasons(resp.Reason, cl.UnlearnableReason())
		return nil
	}
	prob := cl.Gate.Prob
	open, err := tx.ListPending(engine.PendingOpen, store.MaxPendingLimit)
	if err != nil {
		return err
	}
	var session []engine.Pending
	for _, p := range open {
		if sameSuggestion(p, c, cl.Polarity, cands) {
			resp.PendingID, resp.Merged = p.ID, true
			return tx.SeePending(p.ID, prob, c.At)
		}
		if p.Gate != nil && c.FrameID != "" && p.FrameID == c.FrameID {
			session = append(session, p)
		}
	}
	cfg, err := tx.Config()
	if err != nil {
		return err
	}
	if budget, ok, err := sessionBudget(tx, cfg, c.FrameID); err != nil {
		return err
	} else if ok && len(session) >= budget {
		least := session[0]
		for _, p := range session[1:] {
			if *p.Gate < *least.Gate {
				least = p
			}
		}
		if prob <= *least.Gate {
			resp.Reason = classifier.JoinReasons(resp.Reason, fmt.Sprintf(
				"inbox budget: this session has %d open suggestions at least as likely (inbox.share, inbox.session_min)", len(session)))
			return nil
		}
		if err := tx.ResolvePending(least.ID, engine.PendingRejected, "", c.At); err != nil {
			return err
		}
		resp.Replaced = least.ID
	}
	id, err := tx.CreatePending(engine.Pending{Text: c.UserText, Scope: c.Scope, Polarity: cl.Polarity, FrameID: c.FrameID,
		AgentOutput: c.AgentOutput, Candidates: cands, Model: cl.Model, CreatedAt: c.At, Gate: &prob})
	if err != nil {
		return err
	}
	resp.PendingID = id
	return nil
}

// sameSuggestion reports whether open suggestion p stands for the captured
// correction c: a captured one (p.Gate set) of the same project and
// direction, about the same top rule — or, with no rule, of the same text.
func sameSuggestion(p engine.Pending, c engine.Correction, pol engine.Polarity, cands []engine.Candidate) bool {
	if p.Gate == nil || p.Scope.Project != c.Scope.Project || p.Polarity != pol {
		return false
	}
	switch {
	case len(cands) == 0 && len(p.Candidates) == 0:
		return p.Text == c.UserText
	case len(cands) == 0 || len(p.Candidates) == 0:
		return false
	}
	return p.Candidates[0].RuleID == cands[0].RuleID
}

// sessionBudget is how many open suggestions session frame may have: the
// config's inbox.share of its prompts (this one and those in the capture
// log), and at least inbox.session_min; ok is false when there is no bound
// (inbox.share 0, or a prompt of no session).
func sessionBudget(tx *store.Tx, cfg engine.Config, frame string) (budget int, ok bool, err error) {
	if cfg.InboxShare <= 0 || frame == "" {
		return 0, false, nil
	}
	n, err := tx.CountCaptures(frame)
	if err != nil {
		return 0, false, err
	}
	return int(max(float64(cfg.InboxSessionMin), math.Floor(cfg.InboxShare*float64(n+1)))), true, nil
}
