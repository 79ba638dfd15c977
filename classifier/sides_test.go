package classifier

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestSideStance(t *testing.T) {
	pnpm := engine.Sides{Prefer: []string{"pnpm"}, Avoid: []string{"npm", "yarn", "package-lock.json"}}
	commit := engine.Sides{Prefer: []string{"ask", "asking"}, Avoid: []string{"commit", "committing", "amend"}}
	emoji := engine.Sides{Avoid: []string{"emoji", "emojis"}}
	const none = 0
	for _, tc := range []struct {
		text  string
		sides engine.Sides
		want  engine.Polarity // none: undecided
	}{
		{"it's fine to use pnpm", pnpm, engine.Reinforce},
		{"Yes, pnpm is fine, go ahead", pnpm, engine.Reinforce},
		{"We use pnpm in this repo, please.", pnpm, engine.Reinforce},
		{"pnpm, not npm", pnpm, engine.Reinforce},
		{"don't use npm", pnpm, engine.Reinforce},
		{"delete the package-lock.json, we never keep one", pnpm, engine.Reinforce},
		{"why did you run npm install again", pnpm, engine.Reinforce},
		{"npm is fine here", pnpm, engine.Counter},
		{"go ahead with npm install, this repo is not on pnpm", pnpm, engine.Counter},
		{"no need for pnpm in this one, use npm", pnpm, engine.Counter},
		{"Please ask me before committing.", commit, engine.Reinforce},
		{"go ahead and commit, no need to ask", commit, engine.Counter},
		{"no emoji please", emoji, engine.Reinforce},
		{"emojis are fine in the changelog", emoji, engine.Counter},
		{"right, leave it all uncommitted, i'll go through the diff and commit myself", commit, none},
		{"stop editing files with npm", pnpm, engine.Reinforce},
		{"keep npm away from this repo", pnpm, engine.Reinforce},
		{"keep the stream editor away from my source tree", engine.Sides{Prefer: []string{"editor"}, Avoid: []string{"sed", "stream editor"}}, engine.Reinforce},
		{"never install anything without pnpm", pnpm, engine.Reinforce},
		{"use pnpm, npm is fine too", pnpm, none},
		{"the build broke", pnpm, none},
	} {
		pol, decided, why := sideStance(tc.text, tc.sides)
		switch {
		case tc.want == none && decided:
			t.Errorf("%q: decided %+d (%s), want undecided", tc.text, pol, why)
		case tc.want != none && (!decided || pol != tc.want):
			t.Errorf("%q: %+d decided=%v (%s), want %+d", tc.text, pol, decided, why, tc.want)
		}
	}
}

// sideStance reads what text says about a rule with sides s: a preferred
// term affirmed or an avoided one rejected supports the rule; a preferred
// term rejected or an avoided one affirmed contradicts it. decided is false
// when the text mentions no term with a stance, or says both ("use pnpm,
// npm is fine too" is left to the other evidence). why names the term read.
func sideStance(text string, s engine.Sides) (pol engine.Polarity, decided bool, why string) {
	return sideStanceOf(clauses(strings.ToLower(text)), s)
}
