package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/datadir"

	"github.com/lexsona/lexsona/classifier"
)

func TestEmbedContract(t *testing.T) {
	c := newCLI(t)
	m := c.mustJSON("embed", "--embedder", "lexical", "stop using sed", "pnpm, not npm")
	if m["embedder"] != "lexical" || m["model"] == "" || m["dims"].(float64) <= 0 {
		t.Fatalf("embed output %v", m)
	}
	vecs := m["vectors"].([]any)
	if len(vecs) != 2 {
		t.Fatalf("%d vectors for 2 texts", len(vecs))
	}
	for i, v := range vecs {
		var norm float64
		for _, x := range v.([]any) {
			norm += x.(float64) * x.(float64)
		}
		if math.Abs(norm-1) > 1e-4 || len(v.([]any)) != int(m["dims"].(float64)) {
			t.Errorf("vector %d: norm² %g, %d dims", i, norm, len(v.([]any)))
		}
	}
	// The lexical embedder is fitted on the registry in force, as the
	// classifier's (and the server's) is: same identity, same vectors.
	cl := c.mustJSON("classify", "--embedder", "lexical", "stop using sed")
	if cl["model"] != m["model"] {
		t.Errorf("embed model %v, classify model %v: want the same fitted embedder", m["model"], cl["model"])
	}
}

func TestClassifyRecordConfirmFlow(t *testing.T) {
	c := newCLI(t)
	m := c.mustJSON("classify", "--embedder", "lexical", "CORRECT[tool.pnpm-not-npm]: we use pnpm here")
	if m["decision"] != "explicit" || m["rule_id"] != "tool.pnpm-not-npm" {
		t.Fatalf("classify %v", m)
	}
	for _, k := range []string{"score", "candidates", "embedder", "model", "thresholds"} {
		if _, ok := m[k]; !ok {
			t.Errorf("classify output lacks %q", k)
		}
	}
	// A calibration file for this model that puts everything in the confirm
	// band: record stores a pending confirmation, confirm resolves it by id.
	data := t.TempDir()
	t.Setenv("LEXSONA_DATA", data)
	model := m["model"].(string)
	cal := classifier.Calibration{Model: model, Embedder: "lexical", Thresholds: classifier.Thresholds{Auto: 1, Confirm: 0.05}}
	if err := classifier.WriteCalibration(filepath.Join(datadir.Calibration(data), classifier.CalibrationFileName(model)), cal); err != nil {
		t.Fatal(err)
	}
	m = c.mustJSON("record", "--embedder", "lexical", "--text", "please stop editing my files with sed")
	if m["decision"] != "confirm" {
		t.Fatalf("record %v", m)
	}
	id := strconv.Itoa(int(m["pending_id"].(float64)))
	list := c.mustJSON("confirm")
	if len(list["confirmations"].([]any)) != 1 {
		t.Fatalf("pending list %v", list)
	}
	res := c.mustJSON("confirm", "--embedder", "lexical", id, "--accept")
	if res["status"] != "accepted" || res["event_type"] != "confirmation" || res["rule_id"] != "tool.no-sed-for-file-editing" {
		t.Errorf("confirm %v", res)
	}
	if code, out, _ := c.run("confirm"); code != 0 || out != "no pending confirmations\n" {
		t.Errorf("empty pending list: exit %d %q", code, out)
	}
	// Not found and conflict are exit 1, for one id or several.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"confirm", "999", "--reject"}, "confirmation 999 not found"},
		{[]string{"confirm", "998", "999", "--reject"}, "2 of 2 confirmations could not be resolved"},
		{[]string{"confirm", id, "--accept"}, "already resolved"},
	} {
		code, _, stderr := c.run(append(tc.args, "--embedder", "lexical")...)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d %q, want 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
