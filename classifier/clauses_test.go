package classifier

import (
	"slices"
	"testing"
)

func TestClauses(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"stop using sed to edit files", nil},
		{"add a login page to the app. also stop using npm in this repo, we use pnpm",
			[]string{"add a login page to the app.", "also stop using npm in this repo, we use pnpm"}},
		{"fix the failing test in auth.go\nand please never commit without asking me first",
			[]string{"fix the failing test in auth.go", "and please never commit without asking me first"}},
		{"one. two three four. five six seven. eight nine ten. eleven twelve thirteen. fourteen fifteen sixteen! seventeen eighteen nineteen?",
			[]string{"five six seven.", "eight nine ten.", "eleven twelve thirteen.", "fourteen fifteen sixteen!", "seventeen eighteen nineteen?"}[1:]},
		{"ok. yes. go", nil},
		{"rename the handler btw you keep adding emoji to commit messages", []string{"rename the handler", "btw you keep adding emoji to commit messages"}},
	}
	for _, tt := range tests {
		if got := Clauses(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Clauses(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
