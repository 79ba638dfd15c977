package classifier

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// Guard keeps corrections that do not say what was wrong from matching a
// rule. "that's wrong", "no", "try again", "not like that", "nope, redo it",
// "wrong again", "ugh" carry no information about which rule was broken, yet
// an embedder still finds some rule closest to them — with all-MiniLM-L6-v2
// at similarities (0.25–0.5) that overlap those of real but loosely worded
// corrections, so no threshold can keep them out. A generic text is new_rule
// whatever its score: it neither auto-matches nor asks the user to confirm
// an unrelated rule (and Record stores nothing for it). Result.Reason says
// which check fired.
//
// The zero Guard disables every check; DefaultGuard is what New uses when
// Options.Guard is nil. The eval harness sets these to show their effect.
type Guard struct {
	// MinContentWords is the number of informative words (see ContentWords) a
	// text needs to match a rule (auto_match or confirm). 0 disables the check.
	MinContentWords int `json:"min_content_words"`
	// AutoMargin is how far the best rule must score above the second best to
	// auto-match; two rules within the margin are ambiguous and go to
	// confirm. 0 disables the check.
	AutoMargin float64 `json:"auto_margin"`
	// NeighbourMargin: an auto match goes to confirm when the best rule's
	// text nearest to the correction is closer, by more than this margin, to
	// a text of another rule than to the correction (see neighbours; dense
	// indexes only). 0 disables the check.
	NeighbourMargin float64 `json:"neighbour_margin,omitempty"`
}

// DefaultGuard needs one informative word, a 0.02 margin over the second
// candidate and a neighbour margin of 0.10 (chosen on the dev split of the
// shipped dataset with all-MiniLM-L6-v2, see eval/README.md).
func DefaultGuard() Guard { return Guard{MinContentWords: 1, AutoMargin: 0.02, NeighbourMargin: 0.10} }

// Reason codes, the first word of Result.Reason.
const (
	ReasonGeneric   = "generic"
	ReasonAmbiguous = "ambiguous"
)

// apply returns the decision after the guard and the reason ("" when the
// guard has nothing to say). A text with too few informative words is
// new_rule whatever its band and carries a "generic" reason, so front ends
// can say the correction did not name what was wrong; an auto_match too close
// to the runner-up becomes confirm with an "ambiguous" reason. Candidates are
// sorted best first.
//
// n is the text's count of informative words (countContentWords, up to
// MinContentWords).
func (g Guard) apply(decision string, n int, cands []engine.Candidate) (string, string) {
	if g.MinContentWords > 0 {
		if n < g.MinContentWords {
			return DecisionNewRule, fmt.Sprintf("%s: the text has %d informative word(s), %d needed to match a rule; it does not say which rule was broken", ReasonGeneric, n, g.MinContentWords)
		}
	}
	if decision == DecisionAutoMatch && g.AutoMargin > 0 && len(cands) > 1 {
		if m := RoundScore(cands[0].Score - cands[1].Score); m < g.AutoMargin {
			return DecisionConfirm, fmt.Sprintf("%s: %s scores only %.3f above %s, less than the %.3f margin needed to auto-match", ReasonAmbiguous, cands[0].RuleID, m, cands[1].RuleID, g.AutoMargin)
		}
	}
	return decision, ""
}

// ContentWords returns the informative words of text: lower-cased runs of
// letters and digits, without English function words, one-letter words and
// the words people use to say "wrong" without saying what (no, nope, wrong,
// again, redo, stop, ugh, ...). "stop using sed to edit files" gives [sed
// edit files]; "nope, redo it" gives none.
func ContentWords(text string) []string {
	var out []string
	var buf [64]byte
	for w, rest, ok := nextContentWord(text, buf[:0]); ok; w, rest, ok = nextContentWord(rest, buf[:0]) {
		out = append(out, string(w))
	}
	return out
}

// countContentWords is len(ContentWords(text)), counting no further than
// limit, without allocating: the guard's hot path.
func countContentWords(text string, limit int) int {
	n := 0
	var buf [64]byte
	for _, rest, ok := nextContentWord(text, buf[:0]); ok && n < limit; _, rest, ok = nextContentWord(rest, buf[:0]) {
		n++
	}
	return n
}

// nextContentWord returns the first informative word of text, lower-cased
// into buf, and the text after it; ok is false when there is none. Words are
// what strings.FieldsFunc gives on strings.ToLower(text) when splitting at
// everything but letters and digits.
func nextContentWord(text string, buf []byte) (word []byte, rest string, ok bool) {
	for text != "" {
		w, n, first, i := buf[:0], 0, rune(0), 0
		for i < len(text) {
			l, size := lowerRune(text[i:])
			if !isWordRune(l) {
				if n > 0 {
					break
				}
				i += size
				continue
			}
			if n == 0 {
				first = l
			}
			n++
			w = utf8.AppendRune(w, l)
			i += size
		}
		text = text[i:]
		if n == 0 {
			break
		}
		if n < 2 && !unicode.IsDigit(first) || genericWords[string(w)] {
			continue
		}
		return w, text, true
	}
	return nil, "", false
}

// lowerRune decodes the first rune of s, lower-cased, and its width.
func lowerRune(s string) (rune, int) {
	if c := s[0]; c < utf8.RuneSelf {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return rune(c), 1
	}
	r, size := utf8.DecodeRuneInString(s)
	return unicode.ToLower(r), size
}

// isWordRune reports whether r is a letter or a digit.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// genericWords are English function words plus the vocabulary of content-free
// complaints. Contractions are split at the apostrophe, so "don't" gives
// "don" and "t" (dropped); their apostrophe-less spellings are listed too.
var genericWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
a an the this that these those it its there here then than so such
i me my mine we us our you your yours he she they them their his her
is am are was were be been being do does did done doing have has had having
will would shall should can could may might must ought
don didn doesn isn aren wasn weren won wouldn shouldn couldn hasn haven hadn mustn
ll re ve
dont didnt doesnt isnt arent wasnt werent wont wouldnt shouldnt couldnt cant hasnt havent
thats whats its im ive youre youve theyre lets heres theres
and or but if because as of at by for with about into onto from to in on off out up down over under before after
again still already just only really actually even also too very much more most some any all
what which who whom whose when where why how
not no nope nah nay never always ever anymore yes yeah yep ok okay fine
please pls plz thanks thank sorry
wrong incorrect bad worse worst terrible awful horrible broken mistake mistakes error wrongly
fail failed failing fails useless stupid dumb silly nonsense garbage rubbish
try tried trying redo redid undo revert retry again fix fixed
stop stopped quit cut
like way thing things stuff something anything everything nothing one
ugh argh hmm hm meh uh um oh ah wow geez jeez sigh damn dammit wtf omg lol seriously
come go going gone get got make made let look see
man dude bro mate
right good well better best
use using used want wanted need needed think thought said say told tell
ask asked asking meant mean expected differently different instead other another
same approach work works worked working broke breaks breaking misunderstood misunderstand
listen listening serious properly proper help helped problem problems issue issues time times start started
`) {
		m[w] = true
	}
	return m
}()
