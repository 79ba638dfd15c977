package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidateText reports an EINVALID error naming field when s is not valid
// UTF-8, holds a control or bidirectional formatting character (tab, line
// feed and CRLF aside: see CheckChars), is empty or only white space, or an
// ETOOLARGE error when it is longer than max bytes (max <= 0 means no limit).
func ValidateText(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	if err := CheckChars(field, s, true); err != nil {
		return err
	}
	if strings.TrimSpace(s) == "" {
		return Errorf(EINVALID, "%s is empty", field)
	}
	if max > 0 && len(s) > max {
		return Errorf(ETOOLARGE, "%s is %d bytes long: at most %d", field, len(s), max)
	}
	return nil
}

// ValidateCorrectionText checks the text of a correction, or of a prompt
// that may be one, named field: ValidateText's errors (at most
// MaxUserTextLength bytes), and EINVALID for a text without a letter or
// digit, from which nothing can be learned.
func ValidateCorrectionText(field, text string) error {
	if err := ValidateText(field, text, MaxUserTextLength); err != nil {
		return err
	}
	if !hasLetterOrDigit(text) {
		return Errorf(EINVALID, "%s has no letters or digits: say what was wrong", field)
	}
	return nil
}

// hasLetterOrDigit reports whether s holds a letter or a digit: a text
// without one says nothing a rule or a correction could be about.
func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// CutAtRune returns the longest prefix of s that is at most n bytes long and
// does not split a UTF-8 encoded rune: s itself when it fits, "" when
// n <= 0. Bytes that are not valid UTF-8 count as one-byte runes, so they
// are kept up to n like ASCII.
func CutAtRune(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	// The rune that byte n-1 belongs to starts at most UTFMax-1 bytes earlier.
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); i+size > n && !(r == utf8.RuneError && size == 1) {
			return s[:i]
		}
		break
	}
	return s[:n]
}
