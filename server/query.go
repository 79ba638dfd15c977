package server

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/server/internal/querycheck"
)

// query reads typed query parameters and keeps the first error, so a handler
// can read them all and check once. Every error is EINVALID and names the
// parameter.
type query struct {
	v    url.Values
	err  error
	read map[string]bool // the names the handler looked up: what it accepts
}

func newQuery(v url.Values) *query {
	q := &query{v: v, read: map[string]bool{}}
	q.fail(querycheck.UTF8(v))
	return q
}

// done returns the first error of the reads, else an EINVALID error naming
// a parameter the handler never looked up (a typo such as projct= would
// otherwise be ignored without a word) and the ones it reads.
func (q *query) done() error {
	if q.err != nil {
		return q.err
	}
	return querycheck.Unknown(q.v, q.read)
}

func (q *query) fail(err error) {
	if q.err == nil && err != nil {
		q.err = err
	}
}

// has reports whether any of names is present (even empty).
func (q *query) has(names ...string) bool {
	for _, n := range names {
		q.read[n] = true
		if _, ok := q.v[n]; ok {
			return true
		}
	}
	return false
}

// str returns the last value of name, trimmed ("" when absent). A repeated
// parameter that is not a list is an error.
func (q *query) str(name string) string {
	q.read[name] = true
	vals := q.v[name]
	q.fail(querycheck.Once(q.v, name))
	if len(vals) == 0 {
		return ""
	}
	return strings.TrimSpace(vals[len(vals)-1])
}

// list returns name's values split on commas (repeats are joined), empties dropped.
func (q *query) list(name string) []string {
	q.read[name] = true
	var out []string
	for _, v := range q.v[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// typed returns the value of a parameter that is not free text (a number,
// a time, a boolean, one of a list), "" when absent; given but empty (now=)
// it is an EINVALID error: such a value is not one of the parameter's, and
// reading it as absent would answer for a default the caller did not ask
// for.
func (q *query) typed(name string) string {
	s := q.str(name)
	if _, given := q.v[name]; given && s == "" {
		q.fail(engine.Errorf(engine.EINVALID, "query parameter %s is empty: give it a value or leave it out", name))
	}
	return s
}

// intIn returns name as an integer in [min, max], def when absent.
func (q *query) intIn(name string, def, min, max int) int {
	s := q.typed(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		q.fail(engine.Errorf(engine.EINVALID, "query parameter %s=%q: want a whole number from %d to %d", name, clip(s), min, max))
		return def
	}
	return n
}

// int64Min returns name as an int64 ≥ min, def when absent.
func (q *query) int64Min(name string, def, min int64) int64 {
	s := q.typed(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min {
		q.fail(engine.Errorf(engine.EINVALID, "query parameter %s=%q: want a whole number ≥ %d", name, clip(s), min))
		return def
	}
	return n
}

// bool returns name as a boolean (true/false/1/0), false when absent.
func (q *query) bool(name string) bool {
	s := q.typed(name)
	if s == "" {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		q.fail(engine.Errorf(engine.EINVALID, "query parameter %s=%q: want true or false", name, clip(s)))
	}
	return b
}

// minQueryTime is the earliest time a query parameter may name: the zero
// time (0001-01-01T00:00:00Z) is what the use cases read as "not given",
// and no LexSona evidence is older than the Unix epoch.
var minQueryTime = time.Unix(0, 0).UTC()

// time returns name as an RFC 3339 time from minQueryTime on, now when
// absent.
func (q *query) time(name string, now time.Time) time.Time {
	s := q.typed(name)
	if s == "" {
		return now
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		q.fail(engine.Errorf(engine.EINVALID, "query parameter %s=%q is not an RFC 3339 time (like 2025-11-22T10:00:00Z)", name, clip(s)))
		return now
	}
	if t.Before(minQueryTime) {
		q.fail(engine.Errorf(engine.EINVALID, "query parameter %s=%q is before %s: give a later time, or leave %s out for the present",
			name, clip(s), minQueryTime.Format(time.RFC3339), name))
		return now
	}
	return t.UTC()
}

// oneOf returns name's value when it is one of allowed, def when absent.
func (q *query) oneOf(name, def string, allowed ...string) string {
	s := q.typed(name)
	if s == "" {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	q.fail(engine.Errorf(engine.EINVALID, "query parameter %s=%q: want one of %s", name, clip(s), strings.Join(allowed, ", ")))
	return def
}

// scopeParams are the query parameters that name a scope.
var scopeParams = []string{"environment", "project", "agent_family", "context_tags"}

// scope returns the normalised, validated scope named by environment,
// project, agent_family and context_tags (comma-separated or repeated).
func (q *query) scope() engine.Scope {
	s, err := engine.ParseScope(engine.Scope{
		Environment: q.str("environment"), Project: q.str("project"), AgentFamily: q.str("agent_family"),
		ContextTags: q.list("context_tags"),
	})
	if err != nil {
		q.fail(err)
	}
	return s
}

// clip shortens a value quoted in an error message (querycheck.Clip).
func clip(s string) string { return querycheck.Clip(s) }
