package engine

import (
	"fmt"
	"unicode/utf8"
)

// Characters refused in stored text. Stored text (rule text, correction
// text, agent output, frame ids) is printed back into terminals and into the
// prompt block agents read, so it must not hold characters that change how
// the text around them is shown:
//   - C0 control characters (U+0000–U+001F) and DEL (U+007F): terminal
//     escape sequences start with ESC, BEL rings, NUL cuts C strings. Tab and
//     line feed are allowed in multi-line fields, and carriage return there
//     only as part of a CRLF line end (alone, it lets later text overwrite the
//     line);
//   - C1 control characters (U+0080–U+009F), which some terminals also obey
//     (U+009B is a one-character CSI);
//   - the Unicode bidirectional embeddings, overrides and isolates (U+202A–
//     U+202E, U+2066–U+2069), which reorder what is displayed so that it no
//     longer reads as stored ("Trojan Source"). The directional marks
//     (U+200E, U+200F, U+061C) reorder nothing and are allowed.

// controlNames names the characters users meet most, for messages.
var controlNames = map[rune]string{
	0x00: "NUL", 0x07: "BEL (bell)", 0x08: "BS (backspace)", 0x09: "TAB", 0x0A: "LF (line feed)",
	0x0B: "VT (vertical tab)", 0x0C: "FF (form feed)", 0x0D: "CR (carriage return)", 0x1B: "ESC (escape)",
	0x7F: "DEL", 0x9B: "CSI", 0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING",
	0x202C: "POP DIRECTIONAL FORMATTING", 0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE",
	0x2069: "POP DIRECTIONAL ISOLATE",
}

// refusedChar reports whether r is refused (see above) at byte i of s.
func refusedChar(s string, i int, r rune, multiline bool) bool {
	switch {
	case r == '\t' || r == '\n':
		return !multiline
	case r == '\r':
		return !multiline || i+1 >= len(s) || s[i+1] != '\n'
	case r < 0x20 || r >= 0x7F && r <= 0x9F:
		return true
	case r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// CheckChars returns an EINVALID error naming field, the character and its
// byte offset when s holds a character refused in stored text (see above);
// multiline allows tab, line feed and CRLF. s is assumed to be valid UTF-8
// (an invalid byte is left to the caller's UTF-8 check).
func CheckChars(field, s string, multiline bool) error {
	for i, r := range s {
		if r == utf8.RuneError || !refusedChar(s, i, r, multiline) {
			continue
		}
		name := fmt.Sprintf("U+%04X", r)
		if n, ok := controlNames[r]; ok {
			name += " " + n
		}
		what := "a control character"
		if r >= 0x202A {
			what = "a bidirectional formatting character"
		}
		return Errorf(EINVALID, "%s contains %s (%s) at byte %d: remove it", field, what, name, i)
	}
	return nil
}

// ValidateLine reports an EINVALID error naming field when s (which may be
// empty) is not valid UTF-8 or holds a character refused in a one-line
// stored field: any CheckChars refuses, and tab, line feed and carriage
// return too.
func ValidateLine(field, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	return CheckChars(field, s, false)
}
