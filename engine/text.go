package engine

import (
	"strings"
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
