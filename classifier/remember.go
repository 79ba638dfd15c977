package classifier

import (
	"regexp"
	"strings"
)

// rememberPrefix is the explicit form of a standing instruction in a
// prompt: "remember:" (or "lexsona remember:"), any case, at its start.
var rememberPrefix = regexp.MustCompile(`(?i)^\s*(lexsona\s+)?remember\s*:\s*`)

// ParseRemember returns the instruction of a "remember: …" prompt, trimmed
// to its first line, and whether text is one.
func ParseRemember(text string) (string, bool) {
	loc := rememberPrefix.FindStringIndex(text)
	if loc == nil {
		return "", false
	}
	body, _, _ := strings.Cut(text[loc[1]:], "\n")
	return strings.TrimSpace(body), true
}
