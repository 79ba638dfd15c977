package memory

import (
	"context"
	"fmt"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// parseRemember returns the instruction of a "remember: …" prompt and
// whether text is one (classifier.ParseRemember).
func parseRemember(text string) (string, bool) { return classifier.ParseRemember(text) }

// remember acts on "remember: <body>", an explicit act of the user: body
// is recorded on the rule it matches in the automatic band, which is then
// stated (in force at once); otherwise a new rule of the user's words is
// created stated and active-eligible — filed under the category of its
// best-scoring rule, with an id from engine.FiledRuleID, scoped to the
// prompt's environment, project and agent family.
func (s *Service) remember(ctx context.Context, c engine.Correction, body string, resp CaptureResponse) (CaptureResponse, error) {
	if err := classifierText(body); err != nil {
		resp.Reason = "remember: with nothing to remember: " + engine.ErrorMessage(err)
		return resp, nil
	}
	c.UserText, c.Stated = body, engine.StatedRemember
	c, redacted, err := prepareCorrection(c, s.now())
	if err != nil {
		return CaptureResponse{}, err
	}
	cl, err := s.clf.Decide(ctx, c.UserText, c.Scope, "", false)
	if err != nil {
		return CaptureResponse{}, err
	}
	c.Detail = "remember: in a prompt"
	if cl.Decision == classifier.DecisionAutoMatch {
		rec, replayed, err := s.commit(ctx, c, cl, redacted, act)
		if err != nil {
			return CaptureResponse{}, err
		}
		resp.RecordResponse, resp.Action, resp.Replayed = &rec, CaptureRecorded, replayed
		if r, err := s.db.GetRule(ctx, rec.RuleID); err == nil {
			resp.RuleText = r.Text
		}
		return resp, nil
	}
	vec, err := s.clf.Vectors(ctx, classifier.CandidateText(c.UserText), nil)
	if err != nil {
		return CaptureResponse{}, err
	}
	category := engine.CategoryUncategorized
	for _, cand := range cl.Candidates {
		if r, err := s.db.GetRule(ctx, cand.RuleID); err == nil && r.Status == engine.StatusActiveEligible && r.Category != engine.CategoryUncategorized {
			category = r.Category
			break
		}
	}
	stateNew := func(tx *store.Tx, c engine.Correction, cl *classifier.Classification, resp *RecordResponse) error {
		return insertStated(tx, vec, c, category, resp)
	}
	rec, replayed, err := s.commit(ctx, c, cl, redacted, stateNew)
	if err != nil {
		return CaptureResponse{}, err
	}
	resp.RecordResponse, resp.Action, resp.Replayed = &rec, CaptureStated, replayed
	if rec.CreatedRule != nil {
		resp.RuleText = rec.CreatedRule.Text
	}
	return resp, nil
}

// insertStated creates the rule the user stated in c (text p.Text, filed
// under category), active-eligible and stated, with its creation event and
// its template's vectors. Its id is engine.FiledRuleID, suffixed -2 … -9
// when taken. Errors: ECONFLICT when all ten are; the store's.
func insertStated(tx *store.Tx, p classifier.TextVectors, c engine.Correction, category string, resp *RecordResponse) error {
	cfg, err := tx.Config()
	if err != nil {
		return err
	}
	r := engine.NewRule(engine.FiledRuleID(p.Text, category), category, engine.SeverityShould, p.Text, candidateScope(c.Scope), cfg, c.At)
	r.Source, r.Status = engine.SourceUser, engine.StatusActiveEligible
	r.State(engine.StatedRemember, c.UserText, c.At)
	base := r.RuleID
	for i := 2; ; i++ {
		taken, err := tx.RuleExists(r.RuleID)
		if err != nil {
			return err
		}
		if !taken {
			break
		}
		if i > 9 {
			return engine.Errorf(engine.ECONFLICT, "rule %s and its variants -2 to -9 already exist: add the rule with an id of your own (lexsona rules add)", base)
		}
		r.RuleID = fmt.Sprintf("%s-%d", base, i)
	}
	ev := engine.Event{UserText: c.UserText, FrameID: c.FrameID, Scope: c.Scope, Decision: "remember", At: c.At,
		Detail: "stated by the user: remember: in a prompt"}
	evID, err := tx.InsertRule(r, ev)
	if err != nil {
		return err
	}
	if err := putVectors(tx, p, r.RuleID); err != nil {
		return err
	}
	saved, err := tx.GetRule(r.RuleID)
	if err != nil {
		return err
	}
	a := engine.Assess(&saved, cfg, c.At)
	resp.RecordResult = &RecordResult{EventID: evID, RuleID: saved.RuleID, EventType: engine.EventCreation, Alpha: saved.Alpha,
		Beta: saved.Beta, Confidence: a.ConfidenceFinal, Active: a.Active}
	resp.CreatedRule = &saved
	return nil
}
