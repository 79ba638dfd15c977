package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// lexsona learned lists an explicit correction; lexsona retract takes it
// back, and the view then says it was retracted; rules list --status takes
// the STATE column's words.
func TestLearnedAndRetractCLI(t *testing.T) {
	c := newCLI(t)
	rec := c.mustJSON("record", "CORRECT[tool.pnpm-not-npm]: pnpm, not npm")
	id := int64(rec["event_id"].(float64))
	l := c.mustJSON("learned", "--since", "1h")
	evs := l["events"].([]any)
	if len(evs) != 1 || evs[0].(map[string]any)["rule_id"] != "tool.pnpm-not-npm" {
		t.Fatalf("learned: %v", l)
	}
	if m := c.mustJSON("rules", "list", "--status", "active"); !strings.Contains(toJSON(t, m), `"tool.pnpm-not-npm"`) {
		t.Errorf("rules list --status active lacks the stated rule: %v", m)
	}
	r := c.mustJSON("retract", itoa64(id))
	if r["event_id"].(float64) != float64(id) || r["rule"].(map[string]any)["state"] == "active" {
		t.Errorf("retract: %v", r)
	}
	ev := c.mustJSON("learned", "--since", "1h")["events"].([]any)[0].(map[string]any)
	if ev["retracted_by"] == nil {
		t.Errorf("the learned view does not say the event was retracted: %v", ev)
	}
	for _, args := range [][]string{{"retract", "x"}, {"retract", "0"}, {"learned", "--since", "yesterday"}} {
		if code, _, _ := c.run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, errs := c.run("retract", itoa64(id)); code != 1 || !strings.Contains(errs, "retracted already") {
		t.Errorf("second retraction: exit %d %s", code, errs)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"1.5d":                 now.Add(-36 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"2026-05-01T00:00:00Z": time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
	} {
		if got, err := parseSince(in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1d", "soon", "-5m"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// snapshot --detect takes the project's scope as the hooks detect it, so a
// [javascript] rule is written for a package.json project.
func TestSnapshotDetectsTheProject(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "webshop")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte("{}"), 0o644)
	c.mustAddRule("style.js-only", "code_style", "should", "--tag", "javascript")
	code, out, errs := c.run("snapshot", "--detect", dir, "--agent", "claude", "--format", "prompt")
	if code != 0 || !strings.Contains(out, "(scope: */webshop/claude[javascript])") || !strings.Contains(out, "[style.js-only]") {
		t.Errorf("exit %d, stderr %s:\n%s", code, errs, out)
	}
}

// A batch of confirmations exits as its items would alone: failures of one
// exit code (one unknown, one resolved already: both 1) keep it.
func TestConfirmBatchExitCode(t *testing.T) {
	for _, tc := range []struct {
		codes []string
		want  int
	}{
		{[]string{engine.ENOTFOUND}, 1},
		{[]string{engine.ECONFLICT, engine.ENOTFOUND}, 1},
		{[]string{engine.ENOTFOUND, engine.EUNAVAILABLE, engine.ECONFLICT}, 1},
		{[]string{engine.EINVALID, engine.EINVALID}, 2},
		{[]string{engine.ENOTFOUND, engine.EINVALID}, 2},
	} {
		code := ""
		for _, c := range tc.codes {
			code = sameOr(code, c, engine.EINVALID)
		}
		if got := exitCode(engine.Errorf(code, "x")); got != tc.want {
			t.Errorf("%v: exit %d, want %d", tc.codes, got, tc.want)
		}
	}
}
