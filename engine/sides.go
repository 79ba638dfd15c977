package engine

import (
	"fmt"
	"strings"
	"unicode"
)

// Sides are the things a rule prefers and the things it avoids, as short
// lowercase terms ("pnpm"; "npm", "yarn", "package-lock.json"). They tell a
// correction that supports the rule from one that contradicts it: "X is
// fine" supports a rule that prefers X and contradicts one that avoids X.
type Sides struct {
	Prefer []string `json:"prefer,omitempty"`
	Avoid  []string `json:"avoid,omitempty"`
}

// Limits on Sides (see ValidateSides).
const (
	MaxSideTerms     = 16 // per side
	MaxSideTermBytes = 40
	MaxSideTermWords = 3
)

// Empty reports whether s names nothing on either side.
func (s Sides) Empty() bool { return len(s.Prefer) == 0 && len(s.Avoid) == 0 }

// ValidateSides reports an EINVALID error naming the side, the term and what
// is wrong with it when a term is empty or over MaxSideTermBytes bytes, is not
// valid UTF-8 or holds a control or bidirectional formatting character, is not
// lowercase, has white space other than single spaces between its words, has
// more than MaxSideTermWords words, is repeated on its side or given on both
// sides; or when a side has more than MaxSideTerms terms.
func ValidateSides(s Sides) error {
	for _, side := range []struct {
		name  string
		terms []string
	}{{"prefer", s.Prefer}, {"avoid", s.Avoid}} {
		if len(side.terms) > MaxSideTerms {
			return Errorf(EINVALID, "%s has %d terms: at most %d", side.name, len(side.terms), MaxSideTerms)
		}
		seen := make(map[string]bool, len(side.terms))
		for _, t := range side.terms {
			if err := validateSideTerm(side.name, t); err != nil {
				return err
			}
			if seen[t] {
				return Errorf(EINVALID, "%s term %q is repeated", side.name, t)
			}
			seen[t] = true
		}
	}
	avoid := make(map[string]bool, len(s.Avoid))
	for _, t := range s.Avoid {
		avoid[t] = true
	}
	for _, t := range s.Prefer {
		if avoid[t] {
			return Errorf(EINVALID, "term %q is both preferred and avoided: give it on one side only", t)
		}
	}
	return nil
}

// validateSideTerm checks one term of the side named side.
func validateSideTerm(side, t string) error {
	what := fmt.Sprintf("%s term %q", side, t)
	switch {
	case t == "":
		return Errorf(EINVALID, "%s term is empty", side)
	case len(t) > MaxSideTermBytes:
		return Errorf(EINVALID, "%s is %d bytes long: at most %d", what, len(t), MaxSideTermBytes)
	}
	if err := ValidateLine(what, t); err != nil {
		return err
	}
	if low := strings.ToLower(t); low != t {
		return Errorf(EINVALID, "%s is not lowercase: write %q", what, low)
	}
	words := strings.Fields(t)
	if strings.Join(words, " ") != t {
		return Errorf(EINVALID, "%s has white space around or between its words other than single spaces", what)
	}
	if len(words) > MaxSideTermWords {
		return Errorf(EINVALID, "%s has %d words: at most %d", what, len(words), MaxSideTermWords)
	}
	return nil
}

// DeriveSides guesses a rule's sides from its template, for a rule whose
// registry gives none: terms after "use", "with", "prefer", "through" or
// "via" are preferred, terms after "never", "not", "no", "don't", "avoid",
// "without", "stop", "skip", "instead of", "rather than" (and "over" after a
// preferred term) are avoided. A side's scope ends at the end of its clause
// (";", ":", a sentence end) or at a word such as "to", "in" or "unless";
// a parenthesis lists terms of the clause's side ("never pipe a script into
// a shell (curl | sh)"). Only content words are kept, lowercased, up to
// MaxSideTermWords a term, with inner '.', '-', '_' and '=' ("package-lock.json");
// a command with one flag also names the command ("grep -r" and "grep").
// It returns empty Sides when it finds nothing; what it returns passes
// ValidateSides.
func DeriveSides(template string) Sides {
	var d deriver
	toks := sideTokens(template)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		next := ""
		if i+1 < len(toks) && toks[i+1].kind == tokWord {
			next = toks[i+1].text
		}
		switch t.kind {
		case tokBoundary:
			d.flush()
			if len(d.stack) == 0 {
				d.mode, d.clause = sideNone, sideNone
			}
		case tokOpen:
			d.flush()
			d.stack = append(d.stack, d.mode)
			if d.mode == sideNone {
				d.mode = d.clause
			}
		case tokClose:
			d.flush()
			if n := len(d.stack); n > 0 {
				d.mode, d.stack = d.stack[n-1], d.stack[:n-1]
			}
		case tokSep:
			d.flush()
		case tokFlag:
			d.content(t.text)
		case tokWord:
			w := t.text
			switch {
			case strings.HasSuffix(w, "'s"): // an owner, not the thing: "the editor's replace tool"
				d.flush()
			case w == "instead" && next == "of", w == "rather" && next == "than":
				i++
				d.set(sideAvoid)
			case w == "such" && next == "as":
				i++
				d.flush()
			case avoidMarkers[w] || strings.HasSuffix(w, "n't"):
				d.set(sideAvoid)
			case w == "over":
				if d.mode == sidePrefer && !d.fresh {
					d.set(sideAvoid)
				} else {
					d.flush()
					d.mode = sideNone
				}
			case preferMarkers[w]:
				switch {
				case d.mode == sideAvoid && d.fresh: // "never use sed"
				case d.mode == sideAvoid && w == "with": // "never drop an error with _"
					d.flush()
					d.mode = sideNone
				default:
					d.set(sidePrefer)
				}
			case w == "but":
				d.flush()
				d.mode, d.clause = sideNone, sideNone
			case scopeBreakers[w]:
				d.flush()
				d.mode = sideNone
			case sideSkipWords[w] || len(w) == 1 && !isDigit(w[0]):
				d.flush()
			default:
				d.content(w)
			}
		}
	}
	d.flush()
	return d.sides()
}

type side int

const (
	sideNone side = iota
	sidePrefer
	sideAvoid
)

// deriver is DeriveSides' state: the side terms are being collected for, the
// side the clause's last marker set (a parenthesis lists terms of it), the
// sides outside each open parenthesis, whether no term was seen since the
// last marker, the term being read and the terms found.
type deriver struct {
	mode, clause  side
	stack         []side
	fresh         bool
	term          []string
	prefer, avoid []sideTerm
}

func (d *deriver) set(s side) {
	d.flush()
	d.mode, d.clause, d.fresh = s, s, true
}

// content adds a word or flag to the term when a side is being collected.
func (d *deriver) content(w string) {
	if d.mode == sideNone {
		return
	}
	if len(d.term) == MaxSideTermWords {
		d.flush()
	}
	d.term = append(d.term, w)
	d.fresh = false
}

func (d *deriver) flush() {
	if len(d.term) == 0 {
		return
	}
	terms := []sideTerm{{text: strings.Join(d.term, " ")}}
	if len(d.term) == 2 && d.term[0][0] != '-' && d.term[1][0] == '-' {
		terms = append(terms, sideTerm{d.term[0], true}) // "grep -r" also names grep
	}
	if d.mode == sidePrefer {
		d.prefer = append(d.prefer, terms...)
	} else {
		d.avoid = append(d.avoid, terms...)
	}
	d.term = d.term[:0]
}

// sideTerm is a term found; head marks the command named by a command with
// a flag, which yields to the other side's terms ("use black, never black
// --fast" prefers black).
type sideTerm struct {
	text string
	head bool
}

// sides returns the terms found, each once, at most MaxSideTerms a side,
// without those refused by ValidateSides, those found on both sides, and
// heads found as a term on the other side.
func (d *deriver) sides() Sides {
	index := func(terms []sideTerm) map[string]bool {
		m := map[string]bool{} // term → found as a term (not only as a head)
		for _, t := range terms {
			m[t.text] = m[t.text] || !t.head
		}
		return m
	}
	inPrefer, inAvoid := index(d.prefer), index(d.avoid)
	keep := func(side string, terms []sideTerm, mine, other map[string]bool) []string {
		var out []string
		seen := map[string]bool{}
		for _, t := range terms {
			theirs, found := other[t.text]
			switch {
			case seen[t.text], len(out) == MaxSideTerms, validateSideTerm(side, t.text) != nil:
				continue
			case found && (theirs || !mine[t.text]): // on both sides, unless only the other's head
				continue
			}
			seen[t.text] = true
			out = append(out, t.text)
		}
		return out
	}
	return Sides{Prefer: keep("prefer", d.prefer, inPrefer, inAvoid), Avoid: keep("avoid", d.avoid, inAvoid, inPrefer)}
}

type tokKind int

const (
	tokWord     tokKind = iota
	tokFlag             // a word starting with '-': "-r", "--force"
	tokBoundary         // ; : ! ? and a sentence's full stop
	tokOpen             // ( [ {
	tokClose            // ) ] }
	tokSep              // any other punctuation: , | / " …
)

type sideToken struct {
	kind tokKind
	text string
}

// sideTokens splits lowercased s into words (letters and digits with inner
// . - _ = / + ' @ ~, and a leading - . / ~ or _ before a letter or digit) and
// punctuation.
func sideTokens(s string) []sideToken {
	s = strings.NewReplacer("’", "'", "‘", "'").Replace(strings.ToLower(s))
	rs := []rune(s)
	alnum := func(i int) bool { return i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) }
	var out []sideToken
	for i := 0; i < len(rs); {
		r := rs[i]
		k := i // a word may start with - . / ~ _ before a letter or digit: "--force", "~/.ssh"
		for k < len(rs) && k < i+3 && strings.ContainsRune("-./~_", rs[k]) {
			k++
		}
		switch {
		case alnum(k):
			j := i + 1
			for j < len(rs) && (alnum(j) || strings.ContainsRune(".-_=/+'@~", rs[j])) {
				j++
			}
			end := j
			for end > i && !alnum(end-1) {
				end--
			}
			w := string(rs[i:end])
			kind := tokWord
			if r == '-' {
				kind = tokFlag
			}
			out = append(out, sideToken{kind, w})
			if tail := string(rs[end:j]); strings.HasSuffix(tail, ".") && w != "e.g" && w != "i.e" && w != "etc" {
				out = append(out, sideToken{tokBoundary, "."})
			}
			i = j
			continue
		case strings.ContainsRune(";:!?.", r):
			out = append(out, sideToken{tokBoundary, string(r)})
		case strings.ContainsRune("([{", r):
			out = append(out, sideToken{tokOpen, string(r)})
		case strings.ContainsRune(")]}", r):
			out = append(out, sideToken{tokClose, string(r)})
		case !unicode.IsSpace(r):
			out = append(out, sideToken{tokSep, string(r)})
		}
		i++
	}
	return out
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	avoidMarkers  = wordSet("never not no nor don't dont avoid avoiding without stop skip neither cannot")
	preferMarkers = wordSet("use using uses prefer prefers preferred with through via")
	// scopeBreakers end a side's scope: what follows them says when, why or
	// where, not what ("use pnpm to install dependencies").
	scopeBreakers = wordSet("to for in on at into onto so when whenever unless if that which who because after before " +
		"until from of by as than while where since then about except whether what how why once against between")
	// sideSkipWords are neither side's terms: function words, and verbs and
	// nouns so general that any rule could name them ("create", "files").
	sideSkipWords = wordSet("a an the and or this these those my your our their its it them me i you we they he she his her us " +
		"any all each every some only just also always ever anywhere everywhere here there please like own other another " +
		"more less much many very same is are be been was were do does did doing done have has had can could should would " +
		"must will may might shall yet even e.g i.e etc straight directly again too one both either else instead " +
		"anything something everything nothing whatever " +
		"create creating created run running runs edit editing edits edited file files code write writing written " +
		"change changes changing changed modify modifying start starting install installing invoke invoking call calling " +
		"get put keep leave touch read delete remove work works working project thing things stuff way tools command commands script scripts " +
		"search find pipe piped piping open show set manage build building claim say tell return drop one-liner one-liners " +
		"disable disabling enable enabling format formatting asking first out up off away goes underlying whole entire")
)
