package models

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// bertNormConfig is tokenizer.json's BertNormalizer.
type bertNormConfig struct {
	Type               string `json:"type"`
	CleanText          bool   `json:"clean_text"`
	HandleChineseChars bool   `json:"handle_chinese_chars"`
	StripAccents       *bool  `json:"strip_accents"` // null: the same as lowercase
	Lowercase          bool   `json:"lowercase"`
}

// normalize is BertNormalizer as sentence-transformers' tokenizers and
// Transformers.js apply it. It runs here rather than in
// github.com/sugarme/tokenizer because that library's version mangles
// accented words, non-ASCII spaces and U+FFFD (Café → [UNK]).
//
//  1. clean_text: drop NUL, U+FFFD and control/format/private-use characters
//     (Cc, Cf, Co, Cs except \t \n \r); every Unicode space becomes ' '.
//  2. handle_chinese_chars: put spaces around CJK ideographs (all planes, as
//     the Rust tokenizers do).
//  3. lowercase, with Greek final sigma as Unicode full case mapping has it.
//  4. strip_accents (null means "if lowercase"): NFD, then drop nonspacing marks (Mn).
func (c bertNormConfig) normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch {
		case c.CleanText && (r == 0 || r == unicode.ReplacementChar):
		case c.CleanText && r != '\t' && r != '\n' && r != '\r' && unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs):
		case c.CleanText && unicode.IsSpace(r):
			b.WriteByte(' ')
		case c.HandleChineseChars && isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if c.Lowercase {
		out = lowerFinalSigma(out)
	}
	strip := c.Lowercase
	if c.StripAccents != nil {
		strip = *c.StripAccents
	}
	if strip {
		b.Reset()
		for _, r := range norm.NFD.String(out) {
			if !unicode.Is(unicode.Mn, r) {
				b.WriteRune(r)
			}
		}
		out = b.String()
	}
	return out
}

// isCJK is BERT's _is_chinese_char: the CJK Unified Ideographs blocks and
// their extensions and compatibility ideographs.
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// lowerFinalSigma lower-cases s; a capital sigma that ends a word (preceded
// by a letter, not followed by one) becomes final sigma ς, as in Python's
// str.lower, Rust's to_lowercase and JavaScript's toLowerCase.
func lowerFinalSigma(s string) string {
	if !strings.ContainsRune(s, 'Σ') {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	out := make([]rune, len(rs))
	for i, r := range rs {
		if r == 'Σ' && i > 0 && unicode.IsLetter(rs[i-1]) && (i+1 == len(rs) || !unicode.IsLetter(rs[i+1])) {
			out[i] = 'ς'
			continue
		}
		out[i] = unicode.ToLower(r)
	}
	return string(out)
}
