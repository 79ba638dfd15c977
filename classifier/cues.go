package classifier

import (
	"regexp"
	"strings"
)

// CueKind is the kind of wording that suggests a correction takes a rule
// back rather than insisting on it. Sentence embeddings barely see such
// wording ("npm is fine here" and "npm is not fine here" are neighbours), so
// the polarity decision (see PolarityCheck) reads it from the text itself.
type CueKind int

// Cue kinds, weakest first.
const (
	CueNone CueKind = iota
	// CueConstraint: "there's no rg on the server", "isn't installed",
	// "is broken": a circumstance that makes the rule's way impossible there,
	// usually given as the reason to do otherwise. It says nothing about
	// which way the text leans, so on its own it never makes a
	// reinforcement: a rule's circumstances rarely come up in a text that
	// insists on it.
	CueConstraint
	// CueDismissal: "no need to", "don't have to", "don't bother", "not
	// necessary", "doesn't matter". It contradicts a rule when what it
	// dismisses is what the rule asks for ("no need to wrap every error"), and
	// reinforces one when it is what the rule forbids ("no need to apologise").
	CueDismissal
	// CuePermission: "is fine", "go ahead and", "feel free", "you can", "it's
	// ok to", "allowed to", "I don't mind", "I trust that vendor", "yes, …",
	// or an exception ("just this once", "it's an emergency", "it's a dummy
	// key"). It contradicts a rule when what it allows is what the rule
	// forbids ("npm is fine here").
	CuePermission
	// CueRetraction: "forget what I said", "never mind", "scratch that", "no
	// longer", "changed my mind": the user takes a rule back.
	CueRetraction
	// CueReversal: the text states with "instead of" or "rather than" a
	// preference its rule's own texts state the other way round ("leave
	// it commented out instead of removing it" against "delete dead code instead of
	// commenting it out", see preferences). It depends on the rule, so
	// DetectCue never returns it; the polarity check looks for it when the
	// wording has no other cue.
	CueReversal
)

// String names the kind as Cue.String and reasons do.
func (k CueKind) String() string {
	switch k {
	case CueConstraint:
		return "constraint"
	case CueDismissal:
		return "dismissal"
	case CuePermission:
		return "permission"
	case CueRetraction:
		return "retraction"
	case CueReversal:
		return "reversal"
	}
	return "none"
}

// Cue is the strongest cue found in a text and the words that carry it
// (lower-cased, as they appear after normalising apostrophes).
type Cue struct {
	Kind   CueKind
	Phrase string
}

// cuePatterns hold, per kind, the phrases that signal it, as one regular
// expression of alternatives over lower-cased text with straight
// apostrophes. Negated forms ("you can't", "is not fine", "it's not ok to")
// do not match: "you can" is checked by notNegated, the others cannot match
// across the "not".
var cuePatterns = []struct {
	kind CueKind
	re   *regexp.Regexp
}{
	{CueRetraction, regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`forget (?:what|about|that|the|my|it)`,
		`ignore (?:what i said|my (?:earlier|previous|last))`,
		`disregard (?:what i said|that rule|the rule|my (?:earlier|previous|last))`,
		`never ?mind`, `scratch that`, `(?:i )?take (?:it|that) back`, `changed my mind`,
		`no longer (?:need(?:ed)?|required|necessary|matters?|applies|apply)`, `not (?:needed |required |necessary )?any ?more`,
	}, "|") + `)\b`)},
	{CuePermission, regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`(?:is|are|was|'s|s|works?|seems?) (?:totally |perfectly |absolutely |really |just |also |actually )?(?:fine|ok|okay|alright|all right|acceptable|allowed|welcome|no problem)`,
		`(?:it's|its|it is) (?:totally |perfectly |absolutely |really |also )?(?:fine|ok|okay|alright|acceptable)`,
		`(?:that's|thats|that is) (?:totally |perfectly |absolutely |really |also )?(?:fine|ok|okay|alright|acceptable) (?:to|if|for)`,
		`go ahead`, `feel free`, `you (?:can|may|could)`, `(?:you're|you are|ur) (?:allowed|free|welcome) to`,
		`allowed to`, `permission to`, `have my permission`, `i don'?t mind`, `i'?m (?:ok|okay|fine|happy) with`,
		`happy for you to`, `no problem (?:with|if)`, `(?:i'd|i would|i'?d much) rather`, `why not just`,
		`i (?:trust|vouch for) (?:that|this|the|them|it|their|these|those)`, `just this once`,
		`(?:it's|its|it is|this is|that's|thats|that is) (?:just |only )?(?:an? )?(?:emergency|hotfix|one-off|throwaway)`,
		`(?:it's|its|it is|they're|they are) (?:just |only )?(?:an? )?(?:dummy|fake|test) (?:value|key|token|secret|password|credential)s?`,
	}, "|") + `)\b`)},
	// A reply that opens by saying yes grants what it goes on to ask for.
	{CuePermission, regexp.MustCompile(`^(?:yes|yeah|yep|yup|sure)[,.!]`)},
	{CueDismissal, regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`no need (?:to|for)`, `(?:don'?t|do not|doesn'?t|does not|won'?t) (?:need|have) to`, `(?:don'?t|do not) bother`,
		`(?:isn'?t|aren'?t|is not|are not|not) (?:really )?(?:needed|necessary|required)`, `unnecessary`,
		`(?:doesn'?t|does not|don'?t|do not) (?:really )?matter`, `(?:i )?don'?t care (?:about|if)`, `not a big deal`,
	}, "|") + `)\b`)},
	{CueConstraint, regexp.MustCompile(`\b(?:` + strings.Join([]string{
		`there(?:'s| is) no [\w.-]+ (?:on|in|at|here|there)`,
		`(?:isn'?t|is not|aren'?t|are not|not) (?:installed|available)`,
		`(?:is|are) (?:currently |still )?(?:broken|unavailable)`,
	}, "|") + `)\b`)},
}

// insistPattern matches the wording of a correction that insists on a rule:
// a prohibition ("don't", "never", "stop", "no more", "avoid"), a negation,
// a preference stated against something ("instead of", "rather than", "not
// X") or a complaint about what the agent did ("why did you", "you just",
// "again").
var insistPattern = regexp.MustCompile(`\b(?:don'?t|do not|never|stop|quit|no more|avoid|not|no|instead|rather than|why did you|why are you|why is|you just|you did|again)\b`)

// Insists reports whether text has wording that insists on a rule (see
// insistPattern). Such a text is less likely to take its rule back, so the
// polarity check asks about it only when its embedding leans further to the
// contrary side (PolarityCheck.InsistMargin).
func Insists(text string) bool {
	return insistPattern.MatchString(strings.ToLower(strings.NewReplacer("’", "'", "‘", "'").Replace(text)))
}

// negatedAfter are the words that turn "you can" / "you may" into a
// prohibition; negatedBefore those that turn "forget ..." into a reminder
// ("don't forget the tests").
var (
	negatedAfter  = []string{"'t", "not", "no ", "never"}
	negatedBefore = []string{"don't ", "dont ", "do not ", "never ", "not ", "didn't ", "did not "}
)

// DetectCue returns the strongest cue in text (retraction > permission >
// dismissal > constraint), or a Cue of kind CueNone.
func DetectCue(text string) Cue {
	t := strings.ToLower(strings.NewReplacer("’", "'", "‘", "'", "`", "'").Replace(text))
	for _, p := range cuePatterns {
		for _, loc := range p.re.FindAllStringIndex(t, -1) {
			phrase := t[loc[0]:loc[1]]
			if strings.HasPrefix(phrase, "you ") && negated(t[loc[1]:]) ||
				strings.HasPrefix(phrase, "forget ") && negatedBy(t[:loc[0]]) {
				continue
			}
			return Cue{Kind: p.kind, Phrase: phrase}
		}
	}
	return Cue{}
}

// negatedBy reports whether before, the text right before a cue, ends with a
// negation.
func negatedBy(before string) bool {
	for _, n := range negatedBefore {
		if strings.HasSuffix(before, n) {
			return true
		}
	}
	return false
}

// negated reports whether rest, the text right after "you can", negates it.
func negated(rest string) bool {
	rest = strings.TrimLeft(rest, " ")
	for _, n := range negatedAfter {
		if strings.HasPrefix(rest, n) {
			return true
		}
	}
	return false
}
