package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// CorrectionRequest is the body of POST /v1/corrections. Polarity is 1 (a
// reinforcement, the default) or -1 (a counterexample); At (RFC 3339) is
// when the correction was made, for backfills (default now); Instruction
// is the reporter's one-sentence reading of Text, classified instead of it
// (engine.Correction.Instruction).
type CorrectionRequest struct {
	Text        string       `json:"text" validate:"required"`
	Instruction string       `json:"instruction"`
	RuleID      string       `json:"rule_id"`
	Polarity    *int         `json:"polarity"`
	Scope       engine.Scope `json:"scope"`
	FrameID     string       `json:"frame_id"`
	AgentOutput string       `json:"agent_output"`
	At          *string      `json:"at"`
}

// IdempotencyHeader names the header that makes POST /v1/corrections retry-safe.
const IdempotencyHeader = "Idempotency-Key"

// correction turns a request body and idempotency key into the correction
// to record. Errors: EINVALID naming a polarity given other than 1 or -1
// (engine.ParseGivenPolarity: the default is asked for by leaving it out)
// or an "at" that is not an RFC 3339 time, "" included (the rest is
// memory.Service.Record's to check).
func correction(req CorrectionRequest, key string) (engine.Correction, error) {
	c := engine.Correction{
		UserText: req.Text, Instruction: req.Instruction, RuleID: req.RuleID, Scope: req.Scope,
		FrameID: req.FrameID, AgentOutput: req.AgentOutput, IdempotencyKey: key,
	}
	if req.Polarity != nil {
		pol, err := engine.ParseGivenPolarity(*req.Polarity)
		if err != nil {
			return c, err
		}
		c.Polarity = pol
	}
	if req.At != nil {
		t, err := time.Parse(time.RFC3339Nano, *req.At)
		if err != nil {
			return c, engine.Errorf(engine.EINVALID, "field \"at\" = %q is not an RFC 3339 time (like 2025-11-22T10:00:00Z): give one, or leave the field out for now", clip(*req.At))
		}
		c.At = t
	}
	return c, nil
}

// record records a correction (memory.Service.Record) and counts its
// decision; the store has committed before it returns, so an answer means
// durable.
func (s *Server) record(ctx context.Context, mem Corrections, c engine.Correction) (memory.RecordResponse, bool, error) {
	resp, replayed, err := mem.Record(ctx, c)
	if err != nil {
		return resp, false, err
	}
	if !replayed {
		s.metrics.decisions.WithLabelValues(resp.Decision).Inc()
	}
	return resp, replayed, nil
}

// POST /v1/corrections: 201 when written, 200 with the first answer when an
// Idempotency-Key is replayed (nothing written), 409 when the key was used
// for another request.
func (s *Server) handleRecord(c echo.Context) error {
	var req CorrectionRequest
	if err := s.decodeJSON(c, &req, false); err != nil {
		return err
	}
	keys := c.Request().Header.Values(IdempotencyHeader)
	if len(keys) > 1 {
		return engine.Errorf(engine.EINVALID, "the %s header is given %d times: give it once", IdempotencyHeader, len(keys))
	}
	key := ""
	if len(keys) == 1 {
		if key = strings.TrimSpace(keys[0]); key == "" {
			return engine.Errorf(engine.EINVALID, "the %s header is empty", IdempotencyHeader)
		}
	}
	corr, err := correction(req, key)
	if err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	resp, replayed, err := s.record(c.Request().Context(), mem, corr)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if !resp.Stored() { // a generic correction that matched nothing: nothing to create
		status = http.StatusOK
	}
	if replayed {
		status = http.StatusOK
		c.Response().Header().Set("Idempotent-Replayed", "true")
	}
	return c.JSON(status, resp)
}

// GET /v1/confirmations?status=pending|accepted|rejected|new_rule|all&limit=
func (s *Server) handleListConfirmations(c echo.Context) error {
	q := newQuery(c.QueryParams())
	status := q.oneOf("status", engine.PendingOpen, engine.PendingOpen, engine.PendingAccepted,
		engine.PendingRejected, engine.PendingNewRule, "all")
	limit := q.intIn("limit", memory.DefaultPendingLimit, 1, memory.MaxPendingLimit)
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	out, err := mem.ListConfirmations(c.Request().Context(), status, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// ConfirmRequest is the body of POST /v1/confirmations/{id}.
// Polarity, with accept or new, is the direction the user gives it: 1
// (the text supports the rule), −1 (it contradicts the rule); absent or 0:
// the confirmation's own polarity.
type ConfirmRequest struct {
	Action   string `json:"action" validate:"required,oneof=accept reject new"`
	RuleID   string `json:"rule_id"`
	Polarity int    `json:"polarity"`
}

// parsePendingID parses a confirmation id path segment.
func parsePendingID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, engine.Errorf(engine.EINVALID, "confirmation id %q: want a positive whole number", clip(s))
	}
	return id, nil
}

// confirm resolves a pending confirmation (memory.Service.Confirm) now,
// with polarity pol (0: as pending).
func (s *Server) confirm(ctx context.Context, mem Corrections, id int64, action, ruleID string, pol int) (memory.ConfirmResult, error) {
	return mem.Confirm(ctx, id, action, strings.TrimSpace(ruleID), engine.Polarity(pol), time.Time{})
}

func (s *Server) handleConfirm(c echo.Context) error {
	id, err := parsePendingID(c.Param("id"))
	if err != nil {
		return err
	}
	var req ConfirmRequest
	if err := s.decodeJSON(c, &req, false); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	res, err := s.confirm(c.Request().Context(), mem, id, req.Action, req.RuleID, req.Polarity)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// ConfirmationList is the answer of GET /v1/confirmations.
type ConfirmationList = memory.ConfirmationList
