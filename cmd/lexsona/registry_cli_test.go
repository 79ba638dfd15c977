package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/datadir"

	"github.com/lexsona/lexsona/classifier"
)

// mustWriteTemp writes data to name in a temp dir and returns its path.
func mustWriteTemp(tb testing.TB, name, data string) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestRegistrySyncSources: `registry sync --registry FILE` syncs one source
// (the file's base name) next to the default pack, leaving its rules alone;
// without --registry the registries in force are readied together; an
// empty registry is refused unless --allow-empty, which archives its own
// source's rules only.
func TestRegistrySyncSources(t *testing.T) {
	c := newCLI(t)
	team := mustWriteTemp(t, "team.yaml", "version: 1\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n    template: \"Run tasks with just, not make\"\n")
	m := c.mustJSON("registry", "sync", "--registry", team)
	if m["registry"] != "team" || m["added"] != float64(1) || m["archived"] != float64(0) {
		t.Fatalf("sync team: %v", m)
	}
	if code, out, errs := c.run("registry", "sync"); code != 0 || !strings.HasPrefix(out, "default+team: ") {
		t.Errorf("registry sync: exit %d %q %s, want the two sources in force", code, out, errs)
	}

	empty := mustWriteTemp(t, "team.yaml", "version: 1\nrules: []\n")
	code, _, errs := c.run("registry", "sync", "--registry", empty)
	if code != 2 || !strings.Contains(errs, "--allow-empty") {
		t.Fatalf("empty registry: exit %d, stderr %s: want 2 naming --allow-empty", code, errs)
	}
	if r := c.mustJSON("rules", "show", "team.use-just"); r["status"] != "active-eligible" {
		t.Errorf("the refused empty registry changed team.use-just: %v", r)
	}
	m = c.mustJSON("registry", "sync", "--registry", empty, "--allow-empty")
	if m["registry"] != "team" || m["archived"] != float64(1) {
		t.Errorf("sync --allow-empty: %v, want team's rule archived", m)
	}
	if r := c.mustJSON("rules", "show", "tool.no-sed-for-file-editing"); r["status"] != "active-eligible" {
		t.Errorf("the default pack's rule after emptying team: %v", r)
	}
}

// TestConfirmSaysWhenActivated: accepting confirmations on a rule one by
// one, the one that makes it active says so, in text and in JSON.
func TestConfirmSaysWhenActivated(t *testing.T) {
	c := newCLI(t)
	model := c.mustJSON("classify", "stop using sed")["model"].(string)
	data := t.TempDir()
	t.Setenv("LEXSONA_DATA", data)
	cal := classifier.Calibration{Model: model, Embedder: "lexical", Thresholds: classifier.Thresholds{Auto: 1, Confirm: 0.05}}
	if err := classifier.WriteCalibration(filepath.Join(datadir.Calibration(data), classifier.CalibrationFileName(model)), cal); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for range 12 {
		m := c.mustJSON("record", "--text", "please stop editing my files with sed")
		if m["decision"] != "confirm" {
			t.Fatalf("record %v", m)
		}
		ids = append(ids, strconv.Itoa(int(m["pending_id"].(float64))))
	}
	code, out, errs := c.run(append(append([]string{"confirm"}, ids[:11]...), "--accept", "--rule", "tool.no-sed-for-file-editing")...)
	if code != 0 {
		t.Fatalf("confirm: exit %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	active := 0
	for _, l := range lines {
		if strings.Contains(l, "now active") {
			active++
		}
	}
	if len(lines) != 11 || active != 1 {
		t.Fatalf("confirm output says \"now active\" %d times, want once:\n%s", active, out)
	}
	if m := c.mustJSON("confirm", ids[11], "--accept"); m["active"] != true || m["activated"] != nil {
		t.Errorf("an accept on a rule already active: %v, want active without activated", m)
	}
}

// TestRegistryDefaultCopyReplacesThePack: the pack `registry default` prints,
// edited and synced from any file, replaces the default pack instead of
// conflicting with it.
func TestRegistryDefaultCopyReplacesThePack(t *testing.T) {
	c := newCLI(t)
	c.mustJSON("registry", "sync") // the pack in force
	code, pack, errs := c.run("registry", "default")
	if code != 0 {
		t.Fatalf("registry default: exit %d %s", code, errs)
	}
	edited := strings.Replace(pack, "Never use sed, awk or perl one-liners to edit files", "Never edit files with sed", 1)
	m := c.mustJSON("registry", "sync", "--registry", mustWriteTemp(t, "my-rules.yaml", edited))
	if m["registry"] != "default" || m["updated"] != float64(1) || m["added"] != float64(0) {
		t.Errorf("sync of an edited copy of the pack: %v, want source default with one rule updated", m)
	}
}
