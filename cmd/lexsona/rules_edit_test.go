package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// mustException records three counterexamples on id tagged tag and returns
// the exception proposal they create.
func (c *cli) mustException(id, tag string) string {
	c.tb.Helper()
	var exc string
	for range 3 {
		m := c.mustJSON("record", "--rule", id, "--text", "it is fine here", "--counter", "--tag", tag)
		if p, ok := m["exception_proposal"].(map[string]any); ok {
			exc = p["rule"].(map[string]any)["rule_id"].(string)
		}
	}
	if exc == "" {
		c.tb.Fatalf("three counterexamples tagged %s proposed no exception to %s", tag, id)
	}
	return exc
}

// TestEditExceptionStatusRefused: `rules edit --status` on an exception
// proposal is refused (exit 2, naming `rules accept`), and leaves both rules
// as they were; `rules accept` excludes the tag from the original, once.
func TestEditExceptionStatusRefused(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.no-sed", "tool_preference", "must")
	exc := c.mustException("tool.no-sed", "migration")
	before := c.state()
	for _, st := range []string{"active-eligible", "archived"} {
		code, _, errs := c.run("rules", "edit", exc, "--status", st)
		if code != 2 || !strings.Contains(errs, "lexsona rules accept "+exc) {
			t.Errorf("--status %s: exit %d, stderr %s", st, code, errs)
		}
	}
	if after := c.state(); after != before {
		t.Errorf("the refused edit wrote:\nbefore %s\nafter  %s", before, after)
	}
	c.mustJSON("rules", "accept", exc)
	// Accepting twice is a conflict (exit 1), as resolving a confirmation twice is.
	if code, _, errs := c.run("rules", "accept", exc); code != 1 || !strings.Contains(errs, exc+" is active-eligible, not a candidate: there is nothing to accept") {
		t.Errorf("accepting twice: exit %d, stderr %s", code, errs)
	}
	parent := c.mustJSON("rules", "show", "tool.no-sed")
	excl, _ := parent["scope"].(map[string]any)["exclude_tags"].([]any)
	if len(excl) != 1 || excl[0] != "migration" {
		t.Errorf("after accept, the original's scope is %v", parent["scope"])
	}
}

// TestScopeShowsExclusions: `rules show` and `why ID` print a rule's
// excluded tags with its scope, not a bare */*/*.
func TestScopeShowsExclusions(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.no-sed", "tool_preference", "must", "--env", "work", "--exclude-tag", "migration")
	for _, args := range [][]string{{"rules", "show", "tool.no-sed"}, {"why", "tool.no-sed"}} {
		code, out, errs := c.run(args...)
		if code != 0 || !strings.Contains(out, "scope work/*/*[not migration]") {
			t.Errorf("%s: exit %d, stdout %s stderr %s", strings.Join(args, " "), code, out, errs)
		}
	}
}

// TestRejectExceptionArchives: `rules reject` on an exception proposal
// archives it, leaves the original rule as it was, and a second reject is a
// conflict (exit 1), as for any reviewed candidate.
func TestRejectExceptionArchives(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.no-sed", "tool_preference", "must")
	exc := c.mustException("tool.no-sed", "migration")
	before := c.mustJSON("rules", "show", "tool.no-sed")
	if got := c.mustJSON("rules", "reject", exc); got["status"] != "archived" {
		t.Errorf("rules reject %s: status %v, want archived", exc, got["status"])
	}
	if got := c.mustJSON("rules", "show", exc); got["status"] != "archived" {
		t.Errorf("rules show %s after reject: status %v, want archived", exc, got["status"])
	}
	after := c.mustJSON("rules", "show", "tool.no-sed")
	if b, a := before["scope"], after["scope"]; !equalJSON(t, b, a) || before["status"] != after["status"] {
		t.Errorf("reject changed the original: before %v, after %v", before, after)
	}
	if code, _, errs := c.run("rules", "reject", exc); code != 1 || !strings.Contains(errs, exc+" is archived, not a candidate") {
		t.Errorf("rejecting twice: exit %d, stderr %s", code, errs)
	}
}

// equalJSON reports whether a and b marshal to the same JSON.
func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
