package engine

import (
	"strings"
	"unicode/utf8"
)

// CleanText is s as it may be stored and classified when it arrives from a
// place nobody checked (a prompt a hook saw, pasted terminal output): line
// ends become LF (CRLF and a lone CR alike), terminal escape sequences
// (ESC [ … final byte, ESC ] … BEL or ESC \, and ESC followed by one
// character) are removed whole, and every other character CheckChars refuses
// in multi-line text is removed, as are invisible characters (zero-width
// ones, the byte-order mark) and bytes that are not valid UTF-8.
// removed counts what was dropped or changed (a CRLF counts once); 0 means s
// is returned as it came.
func CleanText(s string) (cleaned string, removed int) {
	if utf8.ValidString(s) && CheckChars("", s, true) == nil && !strings.Contains(s, "\r") && strings.IndexFunc(s, invisible) < 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			removed++
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
			removed++
		case r == 0x1B:
			size = escapeLen(s[i:])
			removed++
		case refusedChar(s, i, r, true) || invisible(r):
			removed++
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), removed
}

// escapeLen is the length of the escape sequence s starts with (s[0] is
// ESC): a CSI sequence up to its final byte (0x40–0x7E), an OSC, DCS, SOS,
// PM or APC string up to BEL or ESC \, else ESC and the character after it.
// An unterminated CSI or string sequence is ESC and its introducer alone:
// the text after it is kept.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7E {
				return j + 1
			}
		}
		return 2
	case ']', 'P', 'X', '^', '_':
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1B && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		}
		return 2
	}
	_, size := utf8.DecodeRuneInString(s[1:])
	return 1 + size
}

// invisible reports whether r is a character that shows nothing and can
// hide words from a reader: zero-width space, non-joiner and joiner, word
// joiner, Mongolian vowel separator and the byte-order mark. CleanText
// removes them.
func invisible(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0x180E, 0xFEFF:
		return true
	}
	return false
}
