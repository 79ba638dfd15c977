package classifier

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// embedInput is what the embedder sees: white space folded, cut to max bytes
// at a rune boundary. A text already folded and short enough is returned as
// it is, without copying.
func embedInput(text string, max int) string {
	if len(text) <= max && folded(text) {
		return text
	}
	return foldSpace(text, max)
}

// foldSpace folds text's white space runs into single spaces, trims it and
// cuts it to max bytes at a rune boundary. The result is a string of its
// own when it is shorter than the folded text: it never keeps the up to
// 4·max bytes folded alive.
func foldSpace(text string, max int) string {
	text = engine.CutAtRune(strings.TrimLeftFunc(text, unicode.IsSpace), 4*max) // fold only what can survive the cut
	joined := strings.Join(strings.FieldsFunc(text, unicode.IsSpace), " ")
	out := strings.TrimSpace(engine.CutAtRune(joined, max))
	if len(out) < len(joined) {
		return strings.Clone(out)
	}
	return out
}

// folded reports whether text has no white space but single ASCII spaces
// between other characters: what folding white space leaves unchanged.
func folded(text string) bool {
	prev := byte(' ') // a space at the start is not folded either
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ':
			if prev == ' ' {
				return false
			}
		case c < utf8.RuneSelf:
			if '\t' <= c && c <= '\r' {
				return false
			}
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				return false
			}
			i += size - 1
		}
		prev = c
	}
	return prev != ' '
}

// EmbedInput is the text a model embedder sees for text under the default
// Options (white space folded, cut to DefaultMaxEmbedBytes): what a gate
// trained offline must embed to see the vectors the classifier computes.
func EmbedInput(text string) string { return embedInput(text, DefaultMaxEmbedBytes) }
