package memory

import (
	"context"
	"fmt"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// What Capture did with a prompt (CaptureResponse.Action).
const (
	// CaptureRecorded: evidence on a rule (auto_match or explicit).
	CaptureRecorded = "recorded"
	// CapturePending: a pending confirmation in the inbox (confirm band).
	CapturePending = "pending"
	// CaptureProposed: a candidate rule proposed for review (no rule fits).
	CaptureProposed = "proposed"
	// CaptureIgnored: nothing written; Reason says why.
	CaptureIgnored = "ignored"
)

// CaptureResponse is what Capture did. RecordResponse is set for every
// action but ignored.
type CaptureResponse struct {
	*RecordResponse
	Action string `json:"action"`
	// Gate is the correction gate's verdict (nil when the text was ignored
	// before the gate: empty once cleaned, or too large).
	Gate *classifier.GateResult `json:"gate,omitempty"`
	// Cleaned counts the characters engine.CleanText removed or changed
	// before the text was judged and stored.
	Cleaned int `json:"cleaned"`
	// Reason says why an ignored text was ignored.
	Reason string `json:"reason,omitempty"`
}

// Capture acts on free text that nobody marked as a correction — a prompt
// a hook saw — so that LexSona learns only what the user meant:
//   - the text is cleaned (engine.CleanText: line ends to LF, terminal escape
//     sequences and other control characters removed); a text that is then
//     empty, has no letter or digit, or is over the size limit is ignored;
//   - it is classified and judged by the correction gate
//     (classifier.Capture); below the gate's threshold nothing is written;
//   - past the gate, it is recorded as Record would: evidence on the rule
//     of an auto match or a CORRECT[rule_id]: text (a reinforcement, or a
//     counterexample for a contradiction), a pending confirmation for the
//     confirm band, a candidate rule proposed for review when no rule fits;
//     a generic complaint is ignored. The event's detail says it was
//     captured, the gate's probability and what cleaning changed.
//
// c.RuleID and c.Polarity must be unset (Capture decides them).
// Errors: EINVALID for a bad scope, frame id or agent output, or a rule id
// or polarity given; the classifier's and the store's; on error nothing is
// written.
func (s *Service) Capture(ctx context.Context, c engine.Correction) (CaptureResponse, error) {
	if c.RuleID != "" || c.Polarity != 0 {
		return CaptureResponse{}, engine.Errorf(engine.EINVALID, "a captured prompt names no rule and no polarity: use Record for a correction marked as one")
	}
	text, cleaned := engine.CleanText(c.UserText)
	resp := CaptureResponse{Action: CaptureIgnored, Cleaned: cleaned}
	if err := classifierText(text); err != nil {
		resp.Reason = engine.ErrorMessage(err)
		return resp, nil
	}
	c.UserText = text
	c, redacted, err := prepareCorrection(c, s.now())
	if err != nil {
		return CaptureResponse{}, err
	}
	cl, err := s.clf.Capture(ctx, c.UserText, c.Scope)
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.Gate = cl.Gate
	switch {
	case !cl.Gate.Passed:
		resp.Reason = fmt.Sprintf("not a correction: the gate gives %.2f, below %.2f", cl.Gate.Prob, cl.Gate.Threshold)
		return resp, nil
	case cl.Decision == classifier.DecisionNewRule && !cl.Learnable():
		resp.Reason = cl.UnlearnableReason()
		return resp, nil
	}
	c.Detail = captureDetail(cl.Gate, cleaned)
	rec, _, err := s.commit(ctx, c, cl, redacted)
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.RecordResponse = &rec
	switch {
	case rec.PendingID != 0:
		resp.Action = CapturePending
	case rec.CreatedRule != nil:
		resp.Action = CaptureProposed
	case rec.RecordResult != nil:
		resp.Action = CaptureRecorded
	}
	return resp, nil
}

// classifierText checks what the classifier refuses in a cleaned text: none
// of it is the caller's mistake in a captured prompt, so Capture ignores
// such a text instead of failing.
func classifierText(text string) error {
	if len(text) > engine.MaxUserTextLength {
		return engine.Errorf(engine.ETOOLARGE, "text over %d bytes", engine.MaxUserTextLength)
	}
	return engine.ValidateCorrectionText("prompt", text)
}

// captureDetail is the detail of a captured correction's event.
func captureDetail(g *classifier.GateResult, cleaned int) string {
	d := "captured from a prompt"
	if g.Gate == classifier.GateExplicit {
		d += " (CORRECT[...])"
	} else {
		d += fmt.Sprintf(" (correction gate %s: %.2f ≥ %.2f)", g.Gate, g.Prob, g.Threshold)
	}
	if cleaned > 0 {
		d += fmt.Sprintf("; %d control characters or line ends cleaned from the text", cleaned)
	}
	return d
}

// ReviewCount is what waits in the inbox: pending confirmations and
// candidate rules proposed from corrections.
type ReviewCount struct {
	Pending  int `json:"pending"`
	Proposed int `json:"proposed"`
}

// Total is Pending + Proposed.
func (r ReviewCount) Total() int { return r.Pending + r.Proposed }

// Review counts what waits for review (at most MaxPendingLimit of each).
// Errors: the store's.
func (s *Service) Review(ctx context.Context) (ReviewCount, error) {
	ps, err := s.db.ListPending(ctx, engine.PendingOpen, MaxPendingLimit)
	if err != nil {
		return ReviewCount{}, err
	}
	rules, err := s.db.ListRules(ctx, store.RuleFilter{Status: engine.StatusCandidate, Limit: MaxPendingLimit})
	if err != nil {
		return ReviewCount{}, err
	}
	return ReviewCount{Pending: len(ps), Proposed: len(rules)}, nil
}
