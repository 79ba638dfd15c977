package redact

import (
	"sort"
	"strings"
)

// The rules of extra.go run only where one of their keywords occurs: a text
// without them costs one substring search per keyword, and one with them a
// regexp run over a few fields per occurrence instead of over the whole
// text. No rule's match holds white space before its keyword or reaches
// past the fields-th field from it, so cutting there loses no match.

// fields is how many white-space-separated fields, from the one holding a
// keyword, a match can span: the longest shape, "password for the prod db
// is now VALUE", has eight.
const fields = 8

// findExtra returns where extraRules find secrets in s.
func findExtra(s string) []span {
	var out []span
	lower := asciiLower(s)
	for _, r := range extraRules() {
		if r.scan != nil {
			out = append(out, scanRule(s, lower, r)...)
			continue
		}
		covered := 0 // the end of the last secret an anchored window found
		for _, w := range windows(s, lower, r) {
			if r.from != nil && w.start < covered {
				continue // inside a secret found: replaced whatever it holds
			}
			for _, m := range matches(s, w, r) {
				start, end := trimSpace(s, m.start, m.end)
				if start == end || insidePlaceholder(s, start) || r.valid != nil && !r.valid(s[start:end]) {
					continue
				}
				out = append(out, span{start: start, end: end, kind: r.id})
				covered = max(covered, end)
			}
		}
	}
	return out
}

// matches returns the secrets r's regexp finds in the window w of s: the
// first non-empty group of each match, or the whole match; for a rule with
// value set, the value valueAt reads after the match.
func matches(s string, w span, r extraRule) []span {
	if r.value {
		m := r.re.FindStringIndex(s[w.start:w.end])
		if m == nil {
			return nil
		}
		start, end, ok := valueAt(s, w.start+m[1], w.start+m[1]+maxWindow)
		if !ok {
			return nil
		}
		return []span{{start: start, end: end}}
	}
	var out []span
	for _, m := range r.re.FindAllStringSubmatchIndex(s[w.start:w.end], -1) {
		start, end := m[0], m[1]
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				start, end = m[g], m[g+1]
				break
			}
		}
		out = append(out, span{start: w.start + start, end: w.start + end})
	}
	return out
}

// scanRule returns what the scan of a rule without a regexp finds from
// each of its keywords in lower (where r.from, if set, accepts it), in
// order; a keyword before where the previous scan said to read again is
// skipped (a command's own arguments, a cookie list's values), so that a
// text of many keywords is read about once.
func scanRule(s, lower string, r extraRule) []span {
	var out []span
	hits := keywordHits(s, lower, r.keywords)
	sort.Ints(hits)
	next := 0 // where the last scan said keywords are to be read again
	for _, k := range hits {
		start, ok := k, true
		if r.from != nil {
			start, ok = r.from(s, k)
		}
		if !ok || start < next {
			continue
		}
		spans, n := r.scan(s, start)
		next = max(next, n)
		for _, sp := range spans {
			if !insidePlaceholder(s, sp.start) && (r.valid == nil || r.valid(s[sp.start:sp.end])) {
				out = append(out, span{start: sp.start, end: sp.end, kind: r.id})
			}
		}
	}
	return out
}

// keywordHits returns the offsets of the keywords kws in lower (s in ASCII
// lower case) that are not inside one of Text's placeholders.
func keywordHits(s, lower string, kws []string) []int {
	var hits []int
	for _, kw := range kws {
		for off := 0; ; {
			i := strings.Index(lower[off:], kw)
			if i < 0 {
				break
			}
			k := off + i
			off = k + len(kw)
			if !insidePlaceholder(s, k) {
				hits = append(hits, k)
			}
		}
	}
	return hits
}

// windows returns the parts of s that r's regexp runs on, in order, for
// each of r's keywords in lower (s in ASCII lower case, at the same
// offsets): from where r.from says a match must begin, or else from the
// white space before the field holding the keyword, to the end of the
// fields-th field. Unanchored windows that overlap are merged; anchored
// ones with the same beginning are kept once.
func windows(s, lower string, r extraRule) []span {
	var (
		ws []span
		ok bool
	)
	for _, k := range keywordHits(s, lower, r.keywords) {
		var start int
		if r.from == nil {
			start = fieldStart(s, k)
		} else if start, ok = r.from(s, k); !ok {
			continue
		}
		end := fieldsEnd(s, k)
		if r.value {
			end = min(end, start+maxPrefix) // the value is read by valueAt
		}
		ws = append(ws, span{start: start, end: end})
	}
	if len(ws) < 2 {
		return ws
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].start < ws[j].start })
	kept := ws[:1]
	for _, w := range ws[1:] {
		last := &kept[len(kept)-1]
		switch {
		case w.start == last.start || r.from == nil && w.start <= last.end:
			last.end = max(last.end, w.end)
		default:
			kept = append(kept, w)
		}
	}
	return kept
}

// insidePlaceholder reports whether offset i of s falls inside one of
// Text's placeholders ([REDACTED:1password-secret-key] holds a password
// keyword), which no rule may read as a name or a value: Text is
// idempotent.
func insidePlaceholder(s string, i int) bool {
	lo := max(0, i-len(Placeholder(""))-maxKindLen)
	j := strings.LastIndex(s[lo:i], "[REDACTED:")
	return j >= 0 && !strings.Contains(s[lo+j:i], "]")
}

// maxKindLen bounds the length of a placeholder's type: gitleaks' rule ids
// and those of extra.go are shorter.
const maxKindLen = 64

// fieldStart is where the unanchored window of a keyword at k begins: the
// white space before the field holding it (the patterns' leading context),
// or the start of s, or maxWindow bytes before k in a longer field.
func fieldStart(s string, k int) int {
	limit := max(0, k-maxWindow)
	for k > limit && !isSpace(s[k-1]) {
		k--
	}
	return max(k-1, 0)
}

// fieldsEnd is the end of the fields-th field from the one holding k, with
// the white space after it, or maxWindow bytes after k if that comes
// first (no secret of extra.go is that long), so that many keywords in one
// long field cost each a bounded read.
func fieldsEnd(s string, k int) int {
	limit := min(len(s), k+maxWindow)
	for f := 0; f < fields && k < limit; f++ {
		for k < limit && !isSpace(s[k]) {
			k++
		}
		for k < limit && isSpace(s[k]) {
			k++
		}
	}
	return k
}

// maxWindow bounds the window of one keyword.
const maxWindow = 2048

// maxPrefix bounds the window of a rule with value set: its regexp matches
// a name, a qualifier and a verb, never longer.
const maxPrefix = 128

// atWord is the from of a rule whose match begins at its keyword, which
// must begin a word (the \b of the unanchored pattern).
func atWord(s string, k int) (int, bool) {
	return k, k == 0 || !isWordByte(s[k-1])
}

// backOver returns the from of a rule whose match begins with a run of the
// bytes in set that holds the keyword: the run's first byte, or the one
// maxName bytes before the keyword.
func backOver(set string) func(s string, k int) (int, bool) {
	return func(s string, k int) (int, bool) {
		limit := max(0, k-maxName)
		for k > limit && strings.IndexByte(set, s[k-1]) >= 0 {
			k--
		}
		return k, true
	}
}

// maxName bounds how far backOver reads back: a setting's name is shorter,
// and a longer run is read from its last maxName bytes (the patterns accept
// any prefix of a name).
const maxName = 64

// Byte sets of backOver.
const (
	wordBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
	// nameChars are those of a setting's name (DB_PASSWORD, db.password,
	// --db-password).
	nameChars = wordBytes + ".-"
)

// trimSpace returns the span s[start:end] without the white space at its
// ends: a quoted value's spaces are not part of the secret.
func trimSpace(s string, start, end int) (int, int) {
	for start < end && isSpace(s[start]) {
		start++
	}
	for end > start && isSpace(s[end-1]) {
		end--
	}
	return start, end
}

// isWordByte reports whether c is a byte of the regexps' \w.
func isWordByte(c byte) bool { return strings.IndexByte(wordBytes, c) >= 0 }

// isSpace reports whether c is a byte of the regexps' \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// asciiLower returns s with A-Z in lower case: the same length and offsets
// as s, unlike strings.ToLower on other scripts.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
