package classifier

import (
	"context"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// SidesCorpus is a Corpus that knows the sides of its rules: what each
// prefers and what it avoids (registry keys prefer: and avoid:). A rule it
// gives no sides for, or a Corpus without the method, has the sides
// engine.DeriveSides finds in its template.
type SidesCorpus interface {
	Sides(ctx context.Context) (map[string]engine.Sides, error)
}

// rulesSides returns every rule's sides: the corpus's where it gives them,
// else derived from the rule's template among texts.
func rulesSides(ctx context.Context, corpus Corpus, texts []Text) (map[string]engine.Sides, error) {
	out := map[string]engine.Sides{}
	if sc, ok := corpus.(SidesCorpus); ok {
		given, err := sc.Sides(ctx)
		if err != nil {
			return nil, err
		}
		for id, s := range given {
			if !s.Empty() {
				out[id] = s
			}
		}
	}
	for _, t := range texts {
		if _, ok := out[t.RuleID]; !ok && t.Template {
			if s := engine.DeriveSides(t.Text); !s.Empty() {
				out[t.RuleID] = s
			}
		}
	}
	return out, nil
}

// stance is what a text says of one side term where it mentions it.
type stance int

const (
	stanceNone stance = iota
	stanceAffirm
	stanceReject
)

// Words before a term, in its clause, that affirm or reject it ("use pnpm",
// "we use pnpm", "go ahead with npm"; "no npm", "stop using npm", "you used
// npm again"), and words after it that do ("npm is fine"; "npm is wrong").
// A rejecting word before the term wins over an affirming one ("don't use
// npm").
var (
	affirmBefore = []string{"use", "using", "with", "prefer", "please", "yes", "yeah", "yep", "go ahead", "feel free",
		"you can", "you may", "keep", "leave", "stick to", "stick with", "switch to", "only", "always", "just", "right,", "correct", "want", "need", "run"}
	rejectBefore = []string{"don't", "dont", "do not", "never", "no", "not", "stop", "avoid", "without", "instead of", "rather than", "no need",
		"quit", "remove", "delete", "get rid of", "ditch", "drop", "why did you", "why are you", "why is there", "you used", "you ran",
		"you added", "you created", "you made", "you did", "no more", "ban", "hate", "skip", "forget"}
	affirmAfter = []string{"is fine", "is ok", "is okay", "is allowed", "is good", "is great", "is right", "is correct", "works",
		"are fine", "are ok", "are okay", "are allowed", "are good", "are great", "is totally fine", "are totally fine",
		"please", "is what we use", "is the way", "all the way"}
	rejectAfter = []string{"is wrong", "is bad", "is banned", "is forbidden", "is not allowed", "isn't allowed", "is not ok",
		"isn't ok", "is broken", "is not what", "again", "are wrong", "are bad", "are banned", "are not allowed", "away", "out of", "is not needed", "isn't needed", "not needed", "is unnecessary"}
)

// sideStanceOf is sideStance over the clauses of the lower-cased text
// (clauses), split once for every rule.
func sideStanceOf(cls []string, s engine.Sides) (pol engine.Polarity, decided bool, why string) {
	var support, contradict string
	for _, clause := range cls {
		mentions := mentionsIn(clause, s)
		for _, m := range mentions {
			if insideLonger(mentions, m.start, m.end) {
				continue // "editor" in "stream editor": the longer term speaks
			}
			term := clause[m.start:m.end]
			st := stanceAt(clause, lastMentionBefore(mentions, m.start), m.start, m.end)
			switch {
			case st == stanceNone:
			case (st == stanceAffirm) == m.preferred:
				support = term
			default:
				contradict = term
			}
		}
	}
	switch {
	case support != "" && contradict == "":
		return engine.Reinforce, true, support
	case contradict != "" && support == "":
		return engine.Counter, true, contradict
	}
	return engine.Reinforce, false, ""
}

// clauses splits a lower-case text at sentence ends, semicolons, colons,
// commas, new lines and "but". A dot inside a word ("package-lock.json")
// does not split.
func clauses(text string) []string {
	text = strings.ReplaceAll(text, " but ", ", ")
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		split := strings.IndexByte(";,:!?\n", c) >= 0 || c == '.' && (i+1 == len(text) || !wordByte(text[i+1]))
		if split {
			out = append(out, text[start:i])
			start = i + 1
		}
	}
	return append(out, text[start:])
}

// termAt returns the byte offsets where term stands in clause as whole
// words (no letter or digit touching it).
func termAt(clause, term string) []int {
	var out []int
	for from := 0; ; {
		i := strings.Index(clause[from:], term)
		if i < 0 {
			return out
		}
		i += from
		end := i + len(term)
		if (i == 0 || !wordByte(clause[i-1])) && (end == len(clause) || !wordByte(clause[end])) {
			out = append(out, i)
		}
		from = i + 1
	}
}

func wordByte(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// mention is where a side term stands in a clause, [start, end), and
// whether it is a preferred term (else an avoided one).
type mention struct {
	start, end int
	preferred  bool
}

// mentionsIn returns every side term's places in clause.
func mentionsIn(clause string, s engine.Sides) []mention {
	var out []mention
	for k, terms := range [][]string{s.Prefer, s.Avoid} {
		for _, term := range terms {
			for _, at := range termAt(clause, term) {
				out = append(out, mention{at, at + len(term), k == 0})
			}
		}
	}
	return out
}

// insideLonger reports whether [start, end) lies within a longer mention.
func insideLonger(ms []mention, start, end int) bool {
	for _, m := range ms {
		if m.start <= start && end <= m.end && m.end-m.start > end-start {
			return true
		}
	}
	return false
}

// lastMentionBefore is the end of the last term mention that ends before
// at (0 when none): a term's stance is read no further back, so that "ask
// me before committing" does not read "committing" as affirmed.
func lastMentionBefore(ms []mention, at int) int {
	from := 0
	for _, m := range ms {
		if m.end <= at && m.end > from {
			from = m.end
		}
	}
	return from
}

// rejectSet is rejectBefore ready for countPhrases.
var rejectSet = newPhraseSet(rejectBefore)

// userDoes are words that make the user the one acting in a clause ("I'll
// commit myself"): what the user will do says nothing about what the agent
// may do, so such a clause gives no stance.
var userDoes = []string{"i'll", "i will", "i'd", "myself", "let me", "i can", "i want to", "i prefer to", "i'm going to"}

// stanceAt is the stance of the clause towards the term at [start, end),
// reading no further back than from: a rejecting phrase anywhere before it
// in that span ("stop editing files with sed"; two cancel out: "never
// push without asking"), else a phrase right after it, else an affirming
// one among the three words before it; none in a clause where the user is
// the one acting.
func stanceAt(clause string, from, start, end int) stance {
	if hasPhrase(" "+strings.Join(strings.Fields(clause), " ")+" ", userDoes) {
		return stanceNone
	}
	before := strings.Fields(clause[from:start])
	rejects := countPhrases(" "+strings.Join(before, " ")+" ", rejectSet)
	if len(before) > 3 {
		before = before[len(before)-3:]
	}
	window := " " + strings.Join(before, " ") + " "
	after := strings.TrimSpace(clause[end:])
	switch {
	case rejects%2 == 1:
		return stanceReject
	case startsWithAny(after, rejectAfter):
		return stanceReject
	case rejects > 0, hasPhrase(window, affirmBefore), startsWithAny(after, affirmAfter):
		return stanceAffirm
	}
	return stanceNone
}

// countPhrases counts the whole-word occurrences of phrases in window
// (spaces around), a longer phrase hiding the shorter ones inside it ("no
// need" is one, not also "no").
func countPhrases(window string, phrases phraseSet) int {
	n := 0
	for i, p := range phrases.padded {
		n += strings.Count(window, p) * (1 - phrases.hides[i])
	}
	return n
}

// phraseSet is a list of phrases ready for counting: each padded with a
// space on both sides, and how many of the others it holds as whole words.
type phraseSet struct {
	padded []string
	hides  []int
}

func newPhraseSet(phrases []string) phraseSet {
	s := phraseSet{padded: make([]string, len(phrases)), hides: make([]int, len(phrases))}
	for i, p := range phrases {
		s.padded[i] = " " + p + " "
		for _, q := range phrases {
			if p != q && strings.Contains(" "+p+" ", " "+q+" ") {
				s.hides[i]++
			}
		}
	}
	return s
}

// hasPhrase reports whether window (spaces around) holds one of phrases as
// whole words.
func hasPhrase(window string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(window, " "+p+" ") {
			return true
		}
	}
	return false
}

// startsWithAny reports whether s starts with one of phrases, after at most
// two words of its own ("npm here is fine", "npm really is fine").
func startsWithAny(s string, phrases []string) bool {
	words := strings.Fields(s)
	for skip := 0; skip <= 2 && skip <= len(words); skip++ {
		rest := strings.Join(words[skip:], " ")
		for _, p := range phrases {
			if strings.HasPrefix(rest, p) {
				return true
			}
		}
	}
	return false
}
