package classifier

import (
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestInboxBudget(t *testing.T) {
	tests := []struct {
		share        float64
		min, prompts int
		frame        string
		want         int
		wantBounded  bool
	}{
		{0.03, 1, 1, "s", 1, true},
		{0.03, 1, 99, "s", 2, true},
		{0.03, 1, 100, "s", 3, true},
		{0, 1, 100, "s", 0, false},
		{0.03, 1, 100, "", 0, false},
	}
	for _, tt := range tests {
		got, ok := InboxBudget(tt.share, tt.min, tt.prompts, tt.frame)
		if got != tt.want || ok != tt.wantBounded {
			t.Errorf("InboxBudget(%v, %d, %d, %q) = %d, %v; want %d, %v", tt.share, tt.min, tt.prompts, tt.frame, got, ok, tt.want, tt.wantBounded)
		}
	}
}

func TestAdmit(t *testing.T) {
	a := Suggestion{TopRule: "tool.a", Polarity: engine.Reinforce, Prob: 0.6, Frame: "s1"}
	b := Suggestion{TopRule: "tool.b", Polarity: engine.Reinforce, Prob: 0.7, Frame: "s1"}
	other := Suggestion{TopRule: "tool.c", Polarity: engine.Reinforce, Prob: 0.1, Frame: "s2"}
	tests := []struct {
		name    string
		open    []Suggestion
		s       Suggestion
		budget  int
		bounded bool
		want    Admission
	}{
		{"a repeat merges, in any session", []Suggestion{other, a}, Suggestion{TopRule: "tool.a", Polarity: engine.Reinforce, Prob: 0.9, Frame: "s9"}, 1, true, Admission{Merge: 1, Replace: -1}},
		{"the other direction is another suggestion", []Suggestion{a}, Suggestion{TopRule: "tool.a", Polarity: engine.Counter, Frame: "s1", Prob: 0.9}, 5, true, Admission{Merge: -1, Replace: -1, Admitted: true}},
		{"within the budget it is added", []Suggestion{a, other}, b, 2, true, Admission{Merge: -1, Replace: -1, Admitted: true}},
		{"at the budget a more likely one replaces the least likely of its session", []Suggestion{other, a}, b, 1, true, Admission{Merge: -1, Replace: 1, Admitted: true}},
		{"at the budget a less likely one is dropped", []Suggestion{b}, a, 1, true, Admission{Merge: -1, Replace: -1}},
		{"no bound", []Suggestion{b}, a, 0, false, Admission{Merge: -1, Replace: -1, Admitted: true}},
		{"no rule: the same text merges", []Suggestion{{Text: "x", Frame: "s1"}}, Suggestion{Text: "x", Frame: "s2"}, 1, true, Admission{Merge: 0, Replace: -1}},
		{"no rule: another text does not", []Suggestion{{Text: "x", Frame: "s1"}}, Suggestion{Text: "y", Frame: "s2"}, 1, true, Admission{Merge: -1, Replace: -1, Admitted: true}},
	}
	for _, tt := range tests {
		if got := Admit(tt.open, tt.s, tt.budget, tt.bounded); got != tt.want {
			t.Errorf("%s: Admit = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
