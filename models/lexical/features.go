package lexical

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// stopList holds common English function words; their features count
// stopWeight instead of 1. Part of the lexical Identity.
var stopList = strings.Fields(`a an and are as at be but by do does for from has have i if in into is it its
of on or so than that the then there these this those to was were will with you your we our not no`)

var stopWords = func() map[string]bool {
	m := make(map[string]bool, len(stopList))
	for _, w := range stopList {
		m[w] = true
	}
	return m
}()

// lexWords splits text into lower-case words: NFKC normalisation (full-width
// forms, ligatures), Unicode lower-casing, accents stripped (NFD, nonspacing
// marks dropped: "Café" → "cafe"), runs of letters, digits and other marks; apostrophes
// inside words are dropped ("don't" → "dont"); every Han, Hiragana,
// Katakana or Hangul character is a word of its own. A text without letters
// or digits ("👍", "?!") has its visible characters as words; only an empty,
// blank or invisible text has none.
func lexWords(text string) []string {
	text = stripDiacritics(strings.ToLower(norm.NFKC.String(text)))
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			words = append(words, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			cur.WriteRune(r)
		case (r == '\'' || r == '’') && cur.Len() > 0:
			// dropped: "don't" and "dont" are the same word
		default:
			flush()
		}
	}
	flush()
	if len(words) == 0 {
		// Only punctuation, symbols or emoji: each visible character is a word.
		for _, r := range text {
			if unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.M, r) {
				words = append(words, string(r))
			}
		}
	}
	return words
}

// forEachFeature calls fn for every feature occurrence of text with its
// family, 64-bit hash and weight (stopWeight for stop words, 1 otherwise).
func forEachFeature(text string, fn func(fam int, key uint64, w float64)) {
	words := lexWords(text)
	runes := make([]rune, 0, 32)
	for i, w := range words {
		weight := 1.0
		if stopWords[w] {
			weight = stopWeight
		}
		fn(famWord, featureHash(famWord, w, ""), weight)
		if i > 0 {
			bw := 1.0
			if stopWords[w] && stopWords[words[i-1]] {
				bw = stopWeight
			}
			fn(famBigram, featureHash(famBigram, words[i-1], w), bw)
		}
		runes = append(runes[:0], ' ')
		runes = append(runes, []rune(w)...)
		runes = append(runes, ' ')
		for n := charNMin; n <= charNMax && n <= len(runes); n++ {
			for s := 0; s+n <= len(runes); s++ {
				fn(famChar, featureHash(famChar, string(runes[s:s+n]), ""), weight)
			}
		}
	}
}

// featureHash is FNV-1a over the family byte and the feature text (a, or a
// and b joined by a space), finished with the splitmix64 mixer so that both
// the bucket (low bits, modulo dims) and the sign (top bit) are well spread.
func featureHash(fam int, a, b string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	h = (h ^ uint64(fam)) * prime
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * prime
	}
	if b != "" {
		h = (h ^ ' ') * prime
		for i := 0; i < len(b); i++ {
			h = (h ^ uint64(b[i])) * prime
		}
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// stripDiacritics drops the combining diacritical marks (U+0300–U+036F) of
// the NFD form and recomposes the rest: "Café" → "cafe", while Japanese
// voicing marks, Indic vowel signs and Hangul syllables stay as they are.
func stripDiacritics(s string) string {
	d := norm.NFD.String(s)
	if !strings.ContainsFunc(d, isDiacritic) {
		return s
	}
	return norm.NFC.String(strings.Map(func(r rune) rune {
		if isDiacritic(r) {
			return -1
		}
		return r
	}, d))
}

func isDiacritic(r rune) bool { return r >= 0x300 && r <= 0x36F }
