package server

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// NewRuleRequest is the body of POST /v1/rules: a rule the user defines, at
// the prior, as `lexsona rules add`.
type NewRuleRequest = memory.NewRule

// POST /v1/rules
func (s *Server) handleCreateRule(c echo.Context) error {
	var req NewRuleRequest
	if err := s.decodeJSON(c, &req, false); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	v, err := mem.AddRule(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}

// AcceptRequest is the optional body of POST /v1/rules/{id}/accept: the id
// and category the accepted candidate takes (memory.AcceptAs).
type AcceptRequest = memory.AcceptAs

// POST /v1/rules/{id}/accept: no body, an empty JSON object, or an
// AcceptRequest; the answer is the accepted rule with what its activation
// still needs. POST /v1/rules/{id}/reject: no body, or an empty JSON object.
func (s *Server) handleReviewCandidate(accept bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		var as AcceptRequest
		target := any(&struct{}{})
		if accept {
			target = &as
		}
		if err := s.decodeOptionalJSON(c, target); err != nil {
			return err
		}
		mem, err := s.memOf(c)
		if err != nil {
			return err
		}
		if accept {
			v, err := mem.AcceptCandidate(c.Request().Context(), c.Param("id"), as, time.Time{})
			if err != nil {
				return err
			}
			return c.JSON(http.StatusOK, v)
		}
		v, err := mem.ReviewCandidate(c.Request().Context(), c.Param("id"), false, time.Time{})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, v)
	}
}

// RulePatch is the body of PATCH /v1/rules/{id}: the definition fields to
// change (absent fields stay; "topic": "" clears the topic; a scope replaces
// the whole scope; "rename_to" moves the rule and its history to a new id),
// as `lexsona rules edit` takes them. Evidence is never changed.
type RulePatch = memory.RulePatch

func (s *Server) handlePatchRule(c echo.Context) error {
	id := c.Param("id")
	if err := engine.ValidateRuleID(id); err != nil {
		return err
	}
	var p RulePatch
	if err := s.decodeJSON(c, &p, false); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	if err := s.refuseReceivedRule(c, mem, id); err != nil {
		return err
	}
	v, err := mem.EditRule(c.Request().Context(), id, p, time.Time{})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}
