package classifier

import (
	"math"
	"slices"
	"strings"
)

// termIndex scores a correction by the words it shares with each rule's
// vocabulary: the informative words (see ContentWords), crudely stemmed, of
// all the rule's texts — template, examples, corrections and contrary
// phrasings — as one document per rule. A rule's score is the cosine of the
// text's and the document's binary term vectors weighted by inverse document
// frequency over the rules, so a word only one rule uses ("pnpm", "emoji",
// "sudo") counts far more than one many rules share ("commit", "file").
//
// Sentence embeddings see meaning but blur the tool names and flags that
// make a correction specific to one rule; this index sees exactly those, and
// nothing else. Mixed with the dense score (Options.TermWeight) it puts the
// right rule first more often and separates matches from near misses better
// (eval/README.md has the numbers). It is built from the store's texts with
// each snapshot and is immutable.
type termIndex struct {
	terms map[string]int32 // term → column
	idf   []float32        // per column
	// post[c] lists the rules whose document holds column c, with the
	// document's normalised weight for it.
	post [][]posting
}

type posting struct {
	rule int32
	w    float32
}

// newTermIndex builds the index of texts for the rules ids (texts of other
// rules are ignored; a rule without texts scores 0).
func newTermIndex(ids []string, texts []Text) *termIndex {
	pos := make(map[string]int, len(ids))
	for i, id := range ids {
		pos[id] = i
	}
	docs := make([]map[string]bool, len(ids))
	for _, t := range texts {
		i, ok := pos[t.RuleID]
		if !ok {
			continue
		}
		if docs[i] == nil {
			docs[i] = map[string]bool{}
		}
		for _, w := range terms(t.Text) {
			docs[i][w] = true
		}
	}
	ix := &termIndex{terms: map[string]int32{}}
	var df []int
	for _, d := range docs {
		for w := range d {
			c, ok := ix.terms[w]
			if !ok {
				c = int32(len(df))
				ix.terms[w] = c
				df = append(df, 0)
			}
			df[c]++
		}
	}
	n := float64(len(ids))
	ix.idf = make([]float32, len(df))
	for c, k := range df {
		ix.idf[c] = float32(math.Log((1+n)/(1+float64(k))) + 1)
	}
	ix.post = make([][]posting, len(df))
	for i, d := range docs {
		var norm float64
		for w := range d {
			x := float64(ix.idf[ix.terms[w]])
			norm += x * x
		}
		norm = math.Sqrt(norm)
		for w := range d {
			c := ix.terms[w]
			ix.post[c] = append(ix.post[c], posting{rule: int32(i), w: float32(float64(ix.idf[c]) / norm)})
		}
	}
	return ix
}

// scores adds each rule's score for text to dst (len = number of rules).
// Words no rule uses are left out of the text's vector.
func (ix *termIndex) scores(text string, dst []float64) {
	var cols []int32
	var norm float64
	for _, w := range terms(text) {
		c, ok := ix.terms[w]
		if !ok || slices.Contains(cols, c) {
			continue
		}
		cols = append(cols, c)
		norm += float64(ix.idf[c]) * float64(ix.idf[c])
	}
	if norm == 0 {
		return
	}
	norm = math.Sqrt(norm)
	for _, c := range cols {
		qw := float64(ix.idf[c]) / norm
		for _, p := range ix.post[c] {
			dst[p.rule] += qw * float64(p.w)
		}
	}
}

// terms returns the informative words of text (ContentWords), stemmed.
func terms(text string) []string {
	var out []string
	var buf [64]byte
	for w, rest, ok := nextContentWord(text, buf[:0]); ok; w, rest, ok = nextContentWord(rest, buf[:0]) {
		out = append(out, Stem(string(w)))
	}
	return out
}

// Stem strips common English suffixes so that "edits", "editing" and
// "edited" meet as "edit", "commits" and "committed" as "commit", "files" and
// "file" as "fil": deliberately crude and generous (no dictionary), and the
// same on both sides of every comparison.
func Stem(w string) string {
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "es") && len(w) >= 5 && strings.ContainsRune("sxz", rune(w[len(w)-3])),
		strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) >= 4:
		w = w[:len(w)-1]
	}
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	if n := len(w); n >= 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}
