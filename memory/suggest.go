package memory

import (
	"fmt"

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
	var captured []engine.Pending
	var sugs []classifier.Suggestion
	for _, p := range open {
		if p.Gate != nil {
			captured, sugs = append(captured, p), append(sugs, suggestionOf(p))
		}
	}
	cfg, err := tx.Config()
	if err != nil {
		return err
	}
	n := 0
	if c.FrameID != "" && cfg.InboxShare > 0 {
		if n, err = tx.CountCaptures(c.FrameID); err != nil {
			return err
		}
	}
	budget, bounded := classifier.InboxBudget(cfg.InboxShare, cfg.InboxSessionMin, n+1, c.FrameID)
	s := classifier.Suggestion{Project: c.Scope.Project, Polarity: cl.Polarity, Text: c.UserText, Prob: prob, Frame: c.FrameID}
	if len(cands) > 0 {
		s.TopRule = cands[0].RuleID
	}
	a := classifier.Admit(sugs, s, budget, bounded)
	switch {
	case a.Merge >= 0:
		resp.PendingID, resp.Merged = captured[a.Merge].ID, true
		return tx.SeePending(captured[a.Merge].ID, prob, c.At)
	case !a.Admitted:
		resp.Reason = classifier.JoinReasons(resp.Reason, fmt.Sprintf(
			"inbox budget: this session has %d open suggestions at least as likely (inbox.share, inbox.session_min)", budget))
		return nil
	case a.Replace >= 0:
		if err := tx.ResolvePending(captured[a.Replace].ID, engine.PendingRejected, "", c.At); err != nil {
			return err
		}
		resp.Replaced = captured[a.Replace].ID
	}
	id, err := tx.CreatePending(engine.Pending{Text: c.UserText, Scope: c.Scope, Polarity: cl.Polarity, FrameID: c.FrameID,
		AgentOutput: c.AgentOutput, Candidates: cands, Model: cl.Model, CreatedAt: c.At, Gate: &prob, DirectionUnsure: cl.DirectionUnsure})
	if err != nil {
		return err
	}
	resp.PendingID = id
	return nil
}

// suggestionOf is open captured suggestion p as the inbox decision reads
// it (classifier.Admit).
func suggestionOf(p engine.Pending) classifier.Suggestion {
	s := classifier.Suggestion{Project: p.Scope.Project, Polarity: p.Polarity, Text: p.Text, Prob: *p.Gate, Frame: p.FrameID}
	if len(p.Candidates) > 0 {
		s.TopRule = p.Candidates[0].RuleID
	}
	return s
}
