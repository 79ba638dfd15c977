package classifier

import (
	"regexp"
	"strings"
)

// AddressedBoost is added to every rule's score of a correction that is
// addressed (see Addressed), under the product's scoring (a sentence
// embedder's similarity mixed with the rule-vocabulary score; the paper's
// dense-only scoring and the lexical embedder score similarity alone). The
// same amount for every rule (scores are capped at 1), so it changes no
// ranking and, below that cap, no margin: it moves addressed corrections
// towards the upper bands. 0.04 was chosen on the
// dev split of the shipped dataset with all-MiniLM-L6-v2 (see eval/README.md).
const AddressedBoost = 0.04

// addressedPattern matches what makes a text a remark to the agent about the
// work in hand: the second person ("you ran", "your diff"), the first
// ("my repo", "I asked", "we use"), a question, or code quoted in backticks.
var (
	addressedPattern = regexp.MustCompile("(?i)\\b(?:you|your|yours|yourself|you're|youre|u|ur|i|i'm|im|i've|me|my|mine|we|we're|us|our)\\b|\\?|`")
	apostrophes      = strings.NewReplacer("’", "'", "‘", "'")
	// notAddressing are look-alikes of the pronouns: "i.e.", "e.g." and
	// the country ("US", "U.S.", written in capitals).
	notAddressing = regexp.MustCompile(`(?i:\bi\.e\.|\be\.g\.)|\bU\.S\.|\bUS\b`)
)

// Addressed reports whether text speaks to the agent about the work in hand
// (see addressedPattern) rather than stating, impersonally, how something
// should be ("the settings page should remember the theme"). A rule is about the
// agent's behaviour, so a correction that reuses a rule's words in an
// impersonal requirement about the product is more often about something
// else than one that says what "you" did to "my" code (eval/README.md has
// the counts).
func Addressed(text string) bool {
	return addressedPattern.MatchString(notAddressing.ReplaceAllString(apostrophes.Replace(text), " "))
}
