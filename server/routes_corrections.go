package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// CorrectionRequest is the body of POST /v1/corrections. Polarity is 1 (a
// reinforcement, the default) or -1 (a counterexample); At (RFC 3339) is
// when the correction was made, for backfills (default now).
type CorrectionRequest struct {
	Text        string       `json:"text" validate:"required"`
	RuleID      string       `json:"rule_id"`
	Polarity    *int         `json:"polarity"`
	Scope       engine.Scope `json:"scope"`
	FrameID     string       `json:"frame_id"`
	AgentOutput string       `json:"agent_output"`
	At          string       `json:"at"`
}

// IdempotencyHeader names the header that makes POST /v1/corrections retry-safe.
const IdempotencyHeader = "Idempotency-Key"

// recordRequest turns a request body and idempotency key into the
// classifier's request. Errors: EINVALID naming a bad polarity or time (not
// RFC 3339, or in the future: engine.ValidateCorrectionTime).
func (s *Server) recordRequest(req CorrectionRequest, key string) (classifier.RecordRequest, error) {
	rr := classifier.RecordRequest{
		Text: req.Text, RuleID: strings.TrimSpace(req.RuleID), Polarity: engine.Reinforce, Scope: req.Scope,
		FrameID: req.FrameID, AgentOutput: req.AgentOutput, IdempotencyKey: key, At: s.cfg.Now().UTC(),
	}
	if req.Polarity != nil {
		switch *req.Polarity {
		case 1:
		case -1:
			rr.Polarity = engine.Counter
		default:
			return rr, engine.Errorf(engine.EINVALID, "polarity %d: want 1 (reinforcement) or -1 (counterexample)", *req.Polarity)
		}
	}
	if req.At != "" {
		t, err := time.Parse(time.RFC3339Nano, req.At)
		if err != nil {
			return rr, engine.Errorf(engine.EINVALID, "field \"at\" = %q is not an RFC 3339 time (like 2025-11-22T10:00:00Z)", clip(req.At))
		}
		if err := engine.ValidateCorrectionTime(t, rr.At); err != nil {
			return rr, err
		}
		rr.At = t.UTC()
	}
	return rr, nil
}

// record classifies and records a correction (see classifier.Record); the
// store has committed before it returns, so an answer means durable.
func (s *Server) record(ctx context.Context, rr classifier.RecordRequest) (classifier.RecordResponse, bool, error) {
	resp, replayed, err := s.cls.Record(ctx, rr)
	if err != nil {
		return resp, false, err
	}
	if resp.Candidates == nil {
		resp.Candidates = []engine.Candidate{}
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
	rr, err := s.recordRequest(req, key)
	if err != nil {
		return err
	}
	resp, replayed, err := s.record(c.Request().Context(), rr)
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

// ConfirmationList is the answer of GET /v1/confirmations.
type ConfirmationList struct {
	Confirmations []engine.Pending `json:"confirmations"`
}

// GET /v1/confirmations?status=pending|accepted|rejected|new_rule|all&limit=
func (s *Server) handleListConfirmations(c echo.Context) error {
	q := newQuery(c.QueryParams())
	status := q.oneOf("status", engine.PendingOpen, engine.PendingOpen, engine.PendingAccepted,
		engine.PendingRejected, engine.PendingNewRule, "all")
	limit := q.intIn("limit", store.DefaultPendingLimit, 1, store.MaxPendingLimit)
	if err := q.done(); err != nil {
		return err
	}
	out, err := s.listConfirmations(c.Request().Context(), status, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// listConfirmations lists the confirmations of a status (pending, accepted,
// rejected, new_rule, or all; "" means pending), oldest first, at most limit
// (0: store.DefaultPendingLimit). Errors: store.ListPending's.
func (s *Server) listConfirmations(ctx context.Context, status string, limit int) (ConfirmationList, error) {
	switch status {
	case "":
		status = engine.PendingOpen
	case "all":
		status = ""
	}
	ps, err := s.db.ListPending(ctx, status, limit)
	if err != nil {
		return ConfirmationList{}, err
	}
	if ps == nil {
		ps = []engine.Pending{}
	}
	return ConfirmationList{Confirmations: ps}, nil
}

// ConfirmRequest is the body of POST /v1/confirmations/{id}.
type ConfirmRequest struct {
	Action string `json:"action" validate:"required,oneof=accept reject new"`
	RuleID string `json:"rule_id"`
}

// parsePendingID parses a confirmation id path segment.
func parsePendingID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, engine.Errorf(engine.EINVALID, "confirmation id %q: want a positive whole number", clip(s))
	}
	return id, nil
}

// confirm resolves a pending confirmation (see classifier.Confirm).
func (s *Server) confirm(ctx context.Context, id int64, action, ruleID string) (classifier.ConfirmResult, error) {
	return s.cls.Confirm(ctx, id, action, strings.TrimSpace(ruleID), s.cfg.Now().UTC())
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
	res, err := s.confirm(c.Request().Context(), id, req.Action, req.RuleID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
