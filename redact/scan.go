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
// is VALUE", has seven.
const fields = 7

// findExtra returns where extraRules find secrets in s.
func findExtra(s string) []span {
	var out []span
	lower := asciiLower(s)
	for _, r := range extraRules {
		for _, w := range windows(s, lower, r) {
			for _, m := range r.re.FindAllStringSubmatchIndex(s[w.start:w.end], -1) {
				start, end := m[0], m[1]
				for g := 2; g+1 < len(m); g += 2 {
					if m[g] >= 0 && m[g+1] > m[g] {
						start, end = m[g], m[g+1]
						break
					}
				}
				start, end = w.start+start, w.start+end
				if insidePlaceholder(s, start) || r.valid != nil && !r.valid(s[start:end]) {
					continue
				}
				out = append(out, span{start: start, end: end, kind: r.id})
			}
		}
	}
	return out
}

// windows returns the parts of s that r's regexp runs on, in order, for
// each of r's keywords in lower (s in ASCII lower case, at the same
// offsets): from where r.from says a match must begin, or else from the
// white space before the field holding the keyword, to the end of the
// fields-th field. Unanchored windows that overlap are merged; anchored
// ones with the same beginning are kept once.
func windows(s, lower string, r extraRule) []span {
	var ws []span
	for _, kw := range r.keywords {
		for off := 0; ; {
			i := strings.Index(lower[off:], kw)
			if i < 0 {
				break
			}
			k := off + i
			off = k + len(kw)
			if insidePlaceholder(s, k) {
				continue
			}
			start, ok := fieldStart(s, k), true
			if r.from != nil {
				start, ok = r.from(s, k)
			}
			if ok {
				ws = append(ws, span{start: start, end: fieldsEnd(s, k)})
			}
		}
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
// or the start of s.
func fieldStart(s string, k int) int {
	for k > 0 && !isSpace(s[k-1]) {
		k--
	}
	return max(k-1, 0)
}

// fieldsEnd is the end of the fields-th field from the one holding k, with
// the white space after it.
func fieldsEnd(s string, k int) int {
	for f := 0; f < fields && k < len(s); f++ {
		for k < len(s) && !isSpace(s[k]) {
			k++
		}
		for k < len(s) && isSpace(s[k]) {
			k++
		}
	}
	return k
}

// atWord is the from of a rule whose match begins at its keyword, which
// must begin a word (the \b of the unanchored pattern).
func atWord(s string, k int) (int, bool) {
	return k, k == 0 || !isWordByte(s[k-1])
}

// backOver returns the from of a rule whose match begins with a run of the
// bytes in set that holds the keyword: the run's first byte.
func backOver(set string) func(s string, k int) (int, bool) {
	return func(s string, k int) (int, bool) {
		for k > 0 && strings.IndexByte(set, s[k-1]) >= 0 {
			k--
		}
		return k, true
	}
}

// Byte sets of backOver.
const (
	wordBytes = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
	// nameChars are those of a setting's name (DB_PASSWORD, db.password,
	// --db-password).
	nameChars = wordBytes + ".-"
)

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
