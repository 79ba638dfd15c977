package redact

import "strings"

// valueAt reads the value that begins at i in s, reading no further than
// limit, as people write one after a name, a verb or a flag: in double
// quotes (escaped too, \"…\" in JSON held in a string), single quotes or
// back quotes, on one line; or bare, two bytes or more up to white space,
// a quote, or , ; & (the next argument, field or query parameter), not
// beginning with = or : (an assignment's) and without the sentence's
// closing punctuation (. ? : ) ] }) but for "!", which passwords often end
// with (the checks of values.go judge the value without it). A quote that
// is not closed on its line opens a bare value. It returns the value's
// bounds, without the quotes.
func valueAt(s string, i, limit int) (start, end int, ok bool) {
	limit = min(limit, len(s))
	if i >= limit {
		return 0, 0, false
	}
	escaped := s[i] == '\\' && i+1 < limit
	switch {
	case escaped && s[i+1] == '"':
		start, end, ok = quoted(s, i+2, limit, '"')
	case isQuote(s[i]):
		start, end, ok = quoted(s, i+1, limit, s[i])
	}
	if ok {
		return start, end, true
	}
	// bare: after an escaped quote, an escape or a quote that opened
	// nothing, or as it is
	var from []int
	if escaped && isQuote(s[i+1]) {
		from = append(from, i+2)
	}
	if s[i] == '\\' || isQuote(s[i]) {
		from = append(from, i+1)
	}
	for _, b := range append(from, i) {
		if start, end, ok := bare(s, b, limit); ok {
			return start, end, true
		}
	}
	return 0, 0, false
}

// isQuote reports whether c opens a quoted value.
func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// quoted reads a value from i up to the closing quote q (a double quote
// may be escaped), on one line, one byte at least.
func quoted(s string, i, limit int, q byte) (int, int, bool) {
	for k := i; k < limit && s[k] != '\n'; k++ {
		switch {
		case q == '"' && s[k] == '\\' && k+1 < limit && s[k+1] == '"' && k > i:
			return i, k, true
		case s[k] == q && k > i:
			return i, k, true
		case s[k] == q:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// bare reads a bare value from i (see valueAt).
func bare(s string, i, limit int) (int, int, bool) {
	if i >= limit || strings.IndexByte(" \t\n\f\r\"'`,;&=:", s[i]) >= 0 {
		return 0, 0, false
	}
	k := i + 1
	for k < limit && strings.IndexByte(" \t\n\f\r\"'`,;&", s[k]) < 0 {
		k++
	}
	for k > i+1 && strings.IndexByte(".?:)]}", s[k-1]) >= 0 {
		k--
	}
	if k < i+2 {
		return 0, 0, false
	}
	return i, k, true
}
