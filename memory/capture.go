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
	// CaptureRecorded: evidence on a rule, from a prompt that names its
	// rule (CORRECT[rule_id]:) or says "remember: …" of a rule that
	// matches; the rule is stated (in force at once).
	CaptureRecorded = "recorded"
	// CapturePending: one inbox suggestion (new, or an open one raised:
	// Merged), never evidence.
	CapturePending = "pending"
	// CaptureStated: a new rule the user stated ("remember: …" that no
	// rule matches), in force at once (CreatedRule).
	CaptureStated = "stated"
	// CaptureIgnored: nothing written; Reason says why.
	CaptureIgnored = "ignored"
)

// CaptureResponse is what Capture did. RecordResponse is set for every
// action but ignored.
type CaptureResponse struct {
	*RecordResponse
	Action string `json:"action"`
	// Gate is the correction gate's verdict (nil when the text was ignored
	// before the gate: empty once cleaned, only pasted log or code, or an
	// explicit form).
	Gate *classifier.GateResult `json:"gate,omitempty"`
	// Cleaned counts the characters engine.CleanText removed or changed
	// before the text was judged and stored.
	Cleaned int `json:"cleaned"`
	// Pasted counts the lines read as pasted log, code or stack trace and
	// left out (engine.Prose).
	Pasted int `json:"pasted,omitempty"`
	// Reason says why an ignored text was ignored.
	Reason string `json:"reason,omitempty"`
	// RuleText is the text of the rule recorded on (recorded, stated).
	RuleText string `json:"rule_text,omitempty"`
	// Replayed is set when the prompt's idempotency key was recorded
	// before: nothing was written again.
	Replayed bool `json:"replayed,omitempty"`
}

// Capture acts on free text that nobody marked as a correction — a prompt
// a hook saw — so that LexSona learns only what the user meant. Nothing it
// captures becomes a standing instruction without the user:
//   - the text is cut to engine.MaxCaptureBytes and cleaned
//     (engine.CleanText); a text that is then empty or has no letter or
//     digit is ignored;
//   - explicit forms keep the automatic band: CORRECT[rule_id]: records on
//     that rule and states it; "remember: …" records on the rule it
//     matches in the automatic band, or states a new rule of the user's
//     words (see remember);
//   - any other text is read as prose (engine.Prose: pasted log, code and
//     stack traces left out, at most engine.MaxProseBytes kept — all that
//     is judged and stored); nothing is left, it is ignored;
//   - the correction gate judges the prose (classifier.Capture); below its
//     threshold, or a generic complaint no rule can be learned from,
//     nothing is written;
//   - past the gate it becomes one inbox suggestion (suggest): never
//     evidence, never a candidate rule.
//
// Every prompt, whatever it became, is noted in the capture log (see
// Learned): an excerpt of its prose, what it became and why.
//
// c.RuleID and c.Polarity must be unset (Capture decides them).
// Errors: EINVALID for a bad scope, frame id or agent output, or a rule id
// or polarity given; the classifier's and the store's; on error nothing is
// written.
func (s *Service) Capture(ctx context.Context, c engine.Correction) (CaptureResponse, error) {
	if c.RuleID != "" || c.Polarity != 0 {
		return CaptureResponse{}, engine.Errorf(engine.EINVALID, "a captured prompt names no rule and no polarity: use Record for a correction marked as one")
	}
	text, cleaned := engine.CleanText(engine.CutAtRune(c.UserText, engine.MaxCaptureBytes))
	resp := CaptureResponse{Action: CaptureIgnored, Cleaned: cleaned}
	judged := text
	if _, _, explicit, err := classifier.ParseExplicit(text); err != nil {
		resp.Reason = "a CORRECT[...] prefix that does not parse: " + engine.ErrorMessage(err)
	} else if explicit {
		resp, err = s.captureExplicit(ctx, c, text, resp)
		if err != nil {
			return resp, err
		}
	} else if body, ok := parseRemember(text); ok {
		judged = body
		if resp, err = s.remember(ctx, c, body, resp); err != nil {
			return resp, err
		}
	} else {
		prose := engine.Prose(text)
		judged = prose.Text
		if resp, err = s.captureProse(ctx, c, prose, resp); err != nil {
			return resp, err
		}
	}
	if resp.Replayed {
		return resp, nil
	}
	s.logCapture(ctx, c, judged, resp)
	return resp, nil
}

// captureProse judges the prose of a prompt and makes it a suggestion when
// it passes the gate.
func (s *Service) captureProse(ctx context.Context, c engine.Correction, prose engine.ProseResult, resp CaptureResponse) (CaptureResponse, error) {
	cleaned := resp.Cleaned
	resp.Pasted = prose.PastedLines
	if err := classifierText(prose.Text); err != nil {
		resp.Reason = "no prose to judge: " + engine.ErrorMessage(err)
		if prose.MostlyPasted() {
			resp.Reason = "only pasted log, code or stack trace"
		}
		return resp, nil
	}
	c.UserText = prose.Text
	c, redacted, err := prepareCorrection(c, s.now())
	if err != nil {
		return CaptureResponse{}, err
	}
	cl, err := s.clf.Capture(ctx, c.UserText, c.Scope)
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.Gate = cl.Gate
	if !cl.Gate.Passed {
		resp.Reason = fmt.Sprintf("not a correction: the gate gives %.2f, below %.2f", cl.Gate.Prob, cl.Gate.Threshold)
		return resp, nil
	}
	c.Detail = captureDetail(cl.Gate, cleaned, prose.PastedLines)
	rec, replayed, err := s.commit(ctx, c, cl, redacted, suggest)
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.RecordResponse, resp.Replayed = &rec, replayed
	if rec.PendingID != 0 {
		resp.Action = CapturePending
	} else {
		resp.Reason = rec.Reason
	}
	return resp, nil
}

// captureExplicit records a CORRECT[rule_id]: prompt as Record would: on
// its rule, which it states.
func (s *Service) captureExplicit(ctx context.Context, c engine.Correction, text string, resp CaptureResponse) (CaptureResponse, error) {
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
	if engine.ErrorCode(err) == engine.ENOTFOUND || engine.ErrorCode(err) == engine.EINVALID {
		// A prompt naming a rule that is not there is the user's typo, not
		// the caller's mistake: nothing to record.
		resp.Reason = "CORRECT[...] names no rule in force: " + engine.ErrorMessage(err)
		return resp, nil
	}
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.Gate = cl.Gate
	c.Detail = captureDetail(cl.Gate, resp.Cleaned, 0)
	rec, replayed, err := s.commit(ctx, c, cl, redacted, act)
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.RecordResponse, resp.Replayed = &rec, replayed
	if rec.RecordResult != nil {
		resp.Action = CaptureRecorded
		if r, err := s.db.GetRule(ctx, rec.RuleID); err == nil {
			resp.RuleText = r.Text
		}
	} else {
		resp.Reason = rec.Reason
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

// captureDetail is the detail of a captured correction's event or
// suggestion.
func captureDetail(g *classifier.GateResult, cleaned, pasted int) string {
	d := "captured from a prompt"
	if g.Gate == classifier.GateExplicit {
		d += " (CORRECT[...])"
	} else {
		d += fmt.Sprintf(" (correction gate %s: %.2f ≥ %.2f)", g.Gate, g.Prob, g.Threshold)
	}
	if cleaned > 0 {
		d += fmt.Sprintf("; %d control characters or line ends cleaned from the text", cleaned)
	}
	if pasted > 0 {
		d += fmt.Sprintf("; %d lines of pasted log or code left out", pasted)
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

// Review counts what waits for review for scope's project (at most
// MaxPendingLimit of each): the items of that project and those of no
// project; with no project in scope, every item. Errors: the store's.
func (s *Service) Review(ctx context.Context, scope engine.Scope) (ReviewCount, error) {
	ps, err := s.db.ListPending(ctx, engine.PendingOpen, MaxPendingLimit)
	if err != nil {
		return ReviewCount{}, err
	}
	rules, err := s.db.ListRules(ctx, store.RuleFilter{Status: engine.StatusCandidate, Limit: MaxPendingLimit})
	if err != nil {
		return ReviewCount{}, err
	}
	ours := func(project string) bool { return scope.Project == "" || project == "" || project == scope.Project }
	var rc ReviewCount
	for _, p := range ps {
		if ours(p.Scope.Project) {
			rc.Pending++
		}
	}
	for _, r := range rules {
		if ours(r.Scope.Project) {
			rc.Proposed++
		}
	}
	return rc, nil
}
