package memory

import (
	"strings"
	"testing"
)

// A rule's text, added or edited, is stored with its secrets replaced: it is
// printed into every agent's prompt.
func TestRuleTextIsRedacted(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	secret := "postgres://app:Xk9pQz7Lm2@db.internal:5432/orders"
	v, err := s.AddRule(t.Context(), NewRule{RuleID: "team.db-url", Category: "tool_preference", Text: "Connect with " + secret + " only", At: t0})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v.Text, "Xk9pQz7Lm2") {
		t.Errorf("added rule text kept the password: %q", v.Text)
	}
	edited := "Use the token ghp_R8x2Kq9LmZ4vT7nB3cW5yH1dF6gJ0sPaE2uQ to call the API"
	v, err = s.EditRule(t.Context(), "team.db-url", RulePatch{Text: &edited}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(v.Text, "R8x2Kq9LmZ4v") {
		t.Errorf("edited rule text kept the token: %q", v.Text)
	}
}
