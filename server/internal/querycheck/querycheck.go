// Package querycheck holds the checks every query string of the HTTP API
// and of the review page goes through, so that a parameter the handler
// would drop or ignore without a word is refused instead: a pair Go's
// parser skips (a ";", a bad %-escape, past 10,000 parameters), a name or
// value that is not UTF-8, a parameter the handler does not read (a typo
// such as projct=) and a single-valued parameter given twice. Every error
// is engine.EINVALID and names the parameter.
package querycheck

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// MaxParams is the most query parameters a request may carry: Go's net/url
// parses no more (see url.ParseQuery).
const MaxParams = 10000

// Raw returns an EINVALID error naming what in raw Go's parser would drop,
// nil when it parses whole.
func Raw(raw string) error {
	if raw == "" {
		return nil
	}
	if n := strings.Count(raw, "&") + 1; n > MaxParams {
		return engine.Errorf(engine.EINVALID, "the query string has %d parameters: at most %d", n, MaxParams)
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if strings.Contains(pair, ";") {
			return engine.Errorf(engine.EINVALID, "query parameter %q contains \";\": separate parameters with \"&\" (a literal semicolon is written %%3B)", Clip(pair))
		}
	}
	if _, err := url.ParseQuery(raw); err != nil {
		var ee url.EscapeError
		if errors.As(err, &ee) {
			return engine.Errorf(engine.EINVALID, "the query string has a malformed escape %q: a literal %% is written %%25", Clip(string(ee)))
		}
		return engine.Errorf(engine.EINVALID, "the query string cannot be parsed: %v", err)
	}
	return nil
}

// UTF8 returns an EINVALID error when a name or value of v is not valid
// UTF-8 (naming the parameter when its name is), nil otherwise.
func UTF8(v url.Values) error {
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if !utf8.ValidString(k) {
			return engine.Errorf(engine.EINVALID, "a query parameter name is not valid UTF-8")
		}
		for _, s := range v[k] {
			if !utf8.ValidString(s) {
				return engine.Errorf(engine.EINVALID, "query parameter %q is not valid UTF-8", k)
			}
		}
	}
	return nil
}

// Unknown returns an EINVALID error naming the first parameter of v (in
// sorted order) that read does not hold, and listing the ones it does;
// nil when read holds them all.
func Unknown(v url.Values, read map[string]bool) error {
	for _, k := range slices.Sorted(maps.Keys(v)) {
		if !read[k] {
			what := "reads " + strings.Join(slices.Sorted(maps.Keys(read)), ", ")
			if len(read) == 0 {
				what = "reads no query parameters"
			}
			return engine.Errorf(engine.EINVALID, "unknown query parameter %q: this endpoint %s", Clip(k), what)
		}
	}
	return nil
}

// Once returns an EINVALID error when name is given more than once in v.
func Once(v url.Values, name string) error {
	if n := len(v[name]); n > 1 {
		return engine.Errorf(engine.EINVALID, "query parameter %q is given %d times: give it once", name, n)
	}
	return nil
}

// Parse checks raw whole (Raw, UTF8) and returns its parameters when every
// one of them is among accepted, each given at most once (Unknown, Once).
func Parse(raw string, accepted ...string) (url.Values, error) {
	if err := Raw(raw); err != nil {
		return nil, err
	}
	v, _ := url.ParseQuery(raw) // Raw has parsed it whole
	if err := UTF8(v); err != nil {
		return nil, err
	}
	read := make(map[string]bool, len(accepted))
	for _, a := range accepted {
		read[a] = true
	}
	if err := Unknown(v, read); err != nil {
		return nil, err
	}
	for _, a := range accepted {
		if err := Once(v, a); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Clip shortens a value quoted in an error message: one over 64 bytes keeps
// at most its first 61, cut between runes, followed by "...".
func Clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return engine.CutAtRune(s, 61) + "..."
}
