package server

import (
	"bytes"
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// NewRuleRequest is the body of POST /v1/rules (and the add_rule MCP tool's
// input): a rule the user defines, at the prior, as `lexsona rules add`.
type NewRuleRequest struct {
	RuleID   string       `json:"rule_id" jsonschema:"the rule id, lowercase and dotted, e.g. tool.run-go-vet"`
	Category string       `json:"category" jsonschema:"a lowercase word, e.g. tool_preference, communication_style, security_policy, code_style"`
	Severity string       `json:"severity,omitempty" jsonschema:"must, should (default) or style"`
	Text     string       `json:"text" jsonschema:"the rule as it is injected into the prompt"`
	Scope    engine.Scope `json:"scope,omitzero" jsonschema:"where it applies; empty: everywhere"`
	Topic    string       `json:"topic,omitempty" jsonschema:"conflict group: rules of one topic compete"`
}

// addRule creates the rule of req and embeds its text (classifier.AddRule),
// and returns its view. Errors: EINVALID naming a bad field, ECONFLICT when
// the id exists, the embedder's.
func (s *Server) addRule(ctx context.Context, req NewRuleRequest) (engine.RuleView, error) {
	sev := engine.SeverityShould
	if req.Severity != "" {
		var err error
		if sev, err = engine.ParseSeverity(req.Severity); err != nil {
			return engine.RuleView{}, err
		}
	}
	now := s.cfg.Now().UTC()
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return engine.RuleView{}, err
	}
	r := engine.NewRule(req.RuleID, req.Category, sev, req.Text, req.Scope, cfg, now)
	r.Topic = req.Topic
	if r, err = s.cls.AddRule(ctx, r); err != nil {
		return engine.RuleView{}, err
	}
	return engine.View(r, cfg, now), nil
}

// POST /v1/rules
func (s *Server) handleCreateRule(c echo.Context) error {
	var req NewRuleRequest
	if err := s.decodeJSON(c, &req, false); err != nil {
		return err
	}
	v, err := s.addRule(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}

// reviewCandidate accepts or rejects candidate rule id
// (store.AcceptCandidate, RejectCandidate) and returns its view afterwards.
func (s *Server) reviewCandidate(ctx context.Context, id string, accept bool) (engine.RuleView, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.RuleView{}, err
	}
	now := s.cfg.Now().UTC()
	review := s.db.RejectCandidate
	if accept {
		review = s.db.AcceptCandidate
	}
	r, err := review(ctx, id, now)
	if err != nil {
		return engine.RuleView{}, err
	}
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return engine.RuleView{}, err
	}
	return engine.View(r, cfg, now), nil
}

// POST /v1/rules/{id}/accept and /reject: no body, or an empty JSON object.
func (s *Server) handleReviewCandidate(accept bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := readBody(c)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(body)) > 0 {
			if err := checkContentType(c, "application/json"); err != nil {
				return err
			}
			if err := s.decodeBytes(body, &struct{}{}, false); err != nil {
				return err
			}
		}
		v, err := s.reviewCandidate(c.Request().Context(), c.Param("id"), accept)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, v)
	}
}

// RulePatch is the body of PATCH /v1/rules/{id}: the definition fields to
// change (absent fields stay; "topic": "" clears the topic; a scope replaces
// the whole scope). Evidence is never changed.
type RulePatch struct {
	Text     *string       `json:"text"`
	Category *string       `json:"category"`
	Severity *string       `json:"severity"`
	Scope    *engine.Scope `json:"scope"`
	Topic    *string       `json:"topic"`
	Status   *string       `json:"status"`
}

func (s *Server) handlePatchRule(c echo.Context) error {
	id := c.Param("id")
	if err := engine.ValidateRuleID(id); err != nil {
		return err
	}
	var p RulePatch
	if err := s.decodeJSON(c, &p, false); err != nil {
		return err
	}
	u := store.RuleUpdate{Text: p.Text, Category: p.Category, Topic: p.Topic, Scope: p.Scope}
	if p.Severity != nil {
		sev, err := engine.ParseSeverity(*p.Severity)
		if err != nil {
			return err
		}
		u.Severity = &sev
	}
	if p.Status != nil {
		st, err := engine.ParseStatus(*p.Status)
		if err != nil {
			return err
		}
		u.Status = &st
	}
	if u == (store.RuleUpdate{}) {
		return engine.Errorf(engine.EINVALID, "nothing to update: give at least one of text, category, severity, scope, topic, status")
	}
	now := s.cfg.Now().UTC()
	r, err := s.db.UpdateRule(c.Request().Context(), id, u, now)
	if err != nil {
		return err
	}
	cfg, err := s.db.Config(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, engine.View(r, cfg, now))
}
