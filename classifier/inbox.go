package classifier

import (
	"math"

	"github.com/lexsona/lexsona/engine"
)

// Suggestion is what the inbox decision needs of one captured suggestion:
// its project, direction, top rule ("" for none), text (compared only when
// there is no rule), gate probability and session.
type Suggestion struct {
	Project  string
	Polarity engine.Polarity
	TopRule  string
	Text     string
	Prob     float64
	Frame    string
}

// Same reports whether s and o stand for one suggestion: same project and
// direction, about the same top rule — or, with no rule on either, of the
// same text.
func (s Suggestion) Same(o Suggestion) bool {
	if s.Project != o.Project || s.Polarity != o.Polarity {
		return false
	}
	if s.TopRule == "" && o.TopRule == "" {
		return s.Text == o.Text
	}
	return s.TopRule != "" && s.TopRule == o.TopRule
}

// InboxBudget is how many open suggestions a session may hold after its
// prompts-th prompt: share of its prompts, at least min; ok is false when
// there is no bound (share ≤ 0, or a prompt of no session).
func InboxBudget(share float64, min, prompts int, frame string) (budget int, ok bool) {
	if share <= 0 || frame == "" {
		return 0, false
	}
	return int(math.Max(float64(min), math.Floor(share*float64(prompts)))), true
}

// Admission is what a new suggestion does to the inbox: it merges into an
// open one (Merge ≥ 0), or it is added (Admitted), replacing the least
// likely open suggestion of its session when the session is at its budget
// (Replace ≥ 0); otherwise it is dropped.
type Admission struct {
	Merge, Replace int
	Admitted       bool
}

// Admit decides what suggestion s does to the open suggestions (in their
// order, every session's): the first open one it is the Same as takes it;
// else, when the session of s holds budget or more (bounded), the least
// likely of them gives way to s if s is more likely, or s is dropped.
func Admit(open []Suggestion, s Suggestion, budget int, bounded bool) Admission {
	a := Admission{Merge: -1, Replace: -1}
	least, session := -1, 0
	for i, o := range open {
		if o.Same(s) {
			a.Merge = i
			return a
		}
		if s.Frame != "" && o.Frame == s.Frame {
			session++
			if least < 0 || o.Prob < open[least].Prob {
				least = i
			}
		}
	}
	if bounded && session >= budget {
		if least < 0 || s.Prob <= open[least].Prob {
			return a
		}
		a.Replace = least
	}
	a.Admitted = true
	return a
}
