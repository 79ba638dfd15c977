package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestUnmatchedCounterCLI: `record --counter` with a text that matches no
// rule records nothing and says why; `confirm ID --new` on a pending
// counterexample is refused (exit 2) and leaves it pending.
func TestUnmatchedCounterCLI(t *testing.T) {
	c := newCLI(t)
	c.mustJSON("classify", "stop using sed") // creates the database and syncs the default rules
	before := c.state()
	m := c.mustJSON("record", "--text", "zebra quantum marmalade xylophone", "--counter")
	if m["decision"] != "new_rule" || m["rule_id"] != nil || m["created_rule"] != nil ||
		!strings.Contains(m["reason"].(string), "no rule to count it against") {
		t.Errorf("unmatched counterexample: %v", m)
	}
	if after := c.state(); after != before {
		t.Errorf("an unmatched counterexample wrote:\nbefore %s\nafter  %s", before, after)
	}

	m = c.mustJSON("record", "--text", "npm is fine here")
	id, ok := m["pending_id"].(float64)
	if m["decision"] != "confirm" || m["polarity"] != float64(-1) || !ok {
		t.Fatalf("bad fixture: %q is not a pending counterexample: %v", "npm is fine here", m)
	}
	before = c.state()
	pid := strconv.Itoa(int(id))
	if code, _, errs := c.run("confirm", pid, "--new"); code != 2 || !strings.Contains(errs, "is a counterexample") {
		t.Errorf("confirm %s --new on a counterexample: exit %d, stderr %s", pid, code, errs)
	}
	if after := c.state(); after != before {
		t.Errorf("the refused confirm --new wrote:\nbefore %s\nafter  %s", before, after)
	}
	if code, out, _ := c.run("confirm"); code != 0 || !strings.Contains(out, "npm is fine here") {
		t.Errorf("the counterexample is no longer pending after the refusal: exit %d\n%s", code, out)
	}
	c.mustJSON("confirm", pid, "--reject")
}
