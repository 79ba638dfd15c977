package main

import (
	"strings"
	"testing"
)

// TestRegistrySyncDryRun: `registry sync --dry-run --registry FILE` prints
// what the sync then does and writes nothing; without --registry it is a
// usage error.
func TestRegistrySyncDryRun(t *testing.T) {
	c := newCLI(t)
	rule := func(id, text string) string {
		return "  - rule_id: " + id + "\n    category: tool_preference\n    severity: should\n    template: \"" + text + "\"\n"
	}
	c.mustJSON("registry", "sync", "--registry", mustWriteTemp(t, "team.yaml", "version: 1\nrules:\n"+rule("team.one", "Run tasks with just")+rule("team.two", "Lint with ruff")+rule("team.four", "Type-check with mypy")))
	v2 := mustWriteTemp(t, "team.yaml", "version: 1\nrules:\n"+rule("team.one", "Run every task with just")+rule("team.three", "Format with black")+rule("team.four", "Type-check with mypy"))

	plan := c.mustJSON("registry", "sync", "--dry-run", "--registry", v2)
	ids := func(k string) string {
		var out []string
		for _, v := range plan[k].([]any) {
			out = append(out, v.(string))
		}
		return strings.Join(out, ",")
	}
	if plan["dry_run"] != true || ids("added") != "team.three" || ids("updated") != "team.one" || ids("archived") != "team.two" || ids("kept") != "" || ids("unchanged") != "team.four" {
		t.Errorf("plan %v", plan)
	}
	if r := c.mustJSON("rules", "show", "team.two"); r["status"] == "archived" {
		t.Errorf("the dry run archived team.two")
	}
	if code, out, errs := c.run("registry", "sync", "--dry-run", "--registry", v2); code != 0 || !strings.Contains(out, "would add 1, update 1, archive 1 and keep 0 rules, and leave 1 unchanged") || !strings.Contains(out, "same     team.four") {
		t.Errorf("text output: exit %d %q %s", code, out, errs)
	}
	sum := c.mustJSON("registry", "sync", "--registry", v2)
	if sum["added"] != float64(1) || sum["updated"] != float64(1) || sum["archived"] != float64(1) || sum["kept"] != float64(0) {
		t.Errorf("the sync did %v; the plan said %v", sum, plan)
	}
	if code, _, errs := c.run("registry", "sync", "--dry-run"); code != 2 || !strings.Contains(errs, "--registry FILE") {
		t.Errorf("--dry-run without --registry: exit %d %s", code, errs)
	}
}
