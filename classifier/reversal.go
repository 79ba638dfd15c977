package classifier

import (
	"regexp"
	"strings"
)

// preferences holds the preferences the rules' own texts state in the form
// "X instead of Y", "X rather than Y", "X, not Y" or "X; never Y": per rule,
// the stemmed informative words (see terms) of what it prefers and of what
// it rejects. A correction that states a preference with "instead of" or
// "rather than" the other way round — preferring the words its rule rejects
// and rejecting those it prefers, "leave it commented out instead of
// removing it" against "delete dead code instead of commenting it out" —
// takes the rule back, whatever its embedding says (CueReversal). It is
// built from the rule's own affirming texts (template and examples, not the
// corrections merged into it, which may be complaints) and is immutable.
type preferences map[string][]preference

type preference struct{ prefer, reject map[string]bool }

var (
	// rulePreference splits a rule's text at the word that introduces what
	// it rejects; textPreference a correction's, which must state the
	// preference with "instead of" or "rather than": a bare "not" or
	// "never" in a correction insists as often as it permits.
	rulePreference = regexp.MustCompile(`(?i)\b(?:instead of|rather than|not|never)\b`)
	textPreference = regexp.MustCompile(`(?i)\b(?:instead of|rather than)\b`)
	// notStated marks a correction's clause before the split that states no
	// preference of its own: a complaint about what the agent did ("you
	// used sed instead of the edit tool", "why…") or a negated one, which
	// insists on the rule ("don't use grep instead of rg", "stop searching
	// with grep rather than rg").
	notStated = regexp.MustCompile(`(?i)\b(?:you|u|you've|youve|why|don't|dont|do not|does not|doesn't|never|stop|no more|not|avoid|quit)\b`)
	// badVerdict marks a correction that calls the preference it states
	// wrong ("searching with grep instead of rg is wrong"): it insists on
	// the rule too.
	badVerdict = regexp.MustCompile(`(?i)\b(?:is|are|was|'s|seems)\s+(?:wrong|bad|broken|a bad idea|not (?:ok|okay|fine|right))\b`)
	// sentenceEnd and clauseEnd cut the clause before the split (a rule's
	// at a sentence end, a correction's at a comma too); clauseEnd also cuts
	// the clause after it.
	sentenceEnd = regexp.MustCompile(`[.;!?]\s`)
	clauseEnd   = regexp.MustCompile(`[.;!?](?:\s|$)|,\s`)
)

// newPreferences returns the preferences stated by the rules' own affirming
// texts.
func newPreferences(texts []Text) preferences {
	p := preferences{}
	for _, t := range texts {
		if t.Contrary || t.Merged {
			continue
		}
		if pr, ok := splitPreference(t.Text, rulePreference, sentenceEnd, nil); ok {
			p[t.RuleID] = append(p[t.RuleID], pr)
		}
	}
	return p
}

// splitPreference splits text at the first match of at into the words of
// the clause before it (cut at the last match of cut) and of the one after;
// ok is false when at does not match, either side has no informative word,
// or the clause before matches refuse.
func splitPreference(text string, at, cut, refuse *regexp.Regexp) (preference, bool) {
	loc := at.FindStringIndex(text)
	if loc == nil {
		return preference{}, false
	}
	pre := text[:loc[0]]
	if c := cut.FindAllStringIndex(pre, -1); len(c) > 0 {
		pre = pre[c[len(c)-1][1]:]
	}
	post := text[loc[1]:]
	if c := clauseEnd.FindStringIndex(post); c != nil {
		post = post[:c[0]]
	}
	if refuse != nil && refuse.MatchString(pre) {
		return preference{}, false
	}
	pr := preference{prefer: wordSet(pre), reject: wordSet(post)}
	return pr, len(pr.prefer) > 0 && len(pr.reject) > 0
}

// wordSet is the set of text's stemmed informative words.
func wordSet(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range terms(text) {
		m[w] = true
	}
	return m
}

// reversedRules returns, by rule, the words of text that carry a
// preference stated the other way round by one of the rule's texts (rules
// with none left out); text is read once.
func (p preferences) reversedRules(text string) map[string]string {
	if len(p) == 0 {
		return nil
	}
	text = apostrophes.Replace(text)
	t, ok := splitPreference(text, textPreference, clauseEnd, notStated)
	if !ok || badVerdict.MatchString(text) {
		return nil
	}
	var out map[string]string
	for id, rules := range p {
		for _, r := range rules {
			if shares(t.prefer, r.reject) && shares(t.reject, r.prefer) && !shares(t.prefer, r.prefer) && !shares(t.reject, r.reject) {
				if out == nil {
					out = map[string]string{}
				}
				out[id] = strings.ToLower(textPreference.FindString(text))
				break
			}
		}
	}
	return out
}

// shares reports whether a and b have a word in common.
func shares(a, b map[string]bool) bool {
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}
