package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// learnedDefaultSince is how far back GET /v1/learned looks without since.
const learnedDefaultSince = 7 * 24 * time.Hour

// GET /v1/learned?since=&limit=: what was learned since a time (default a
// week back), newest first (memory.Service.Learned): the evidence recorded
// with its rule's text and retraction, the suggestions waiting, and every
// captured prompt with what it became and the gate's verdict.
func (s *Server) handleLearned(c echo.Context) error {
	q := newQuery(c.QueryParams())
	now := time.Now().UTC()
	since := now.Add(-learnedDefaultSince)
	if q.has("since") {
		since = q.time("since", since)
	}
	limit := q.intIn("limit", memory.DefaultLearnedLimit, 1, memory.MaxLearnedLimit)
	if err := q.done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	out, err := mem.Learned(c.Request().Context(), since, limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// POST /v1/events/{id}/retract: take back an event recorded wrongly
// (memory.Service.Retract): 200 with the rule afterwards; 404 for an
// unknown event, 409 for one retracted already or one that carries no
// evidence, 400 for a malformed id or a body with fields.
func (s *Server) handleRetract(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return engine.Errorf(engine.EINVALID, "event id %q: want a positive whole number", clip(c.Param("id")))
	}
	if err := s.decodeOptionalJSON(c, &struct{}{}); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	out, err := mem.Retract(c.Request().Context(), id, time.Time{})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
