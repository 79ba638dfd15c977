package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// testSecrets are synthetic secrets, assembled from parts so that no scanner
// flags this file: a GitHub token and an AWS access key id.
var testSecrets = []string{
	strings.Join([]string{"gh", "p_", "Q7vR2mX9kL4pT8wZ1nB6cY3dF5gH0jS2aE7u"}, ""),
	strings.Join([]string{"AK", "IA", "Q2W3E4R5T6Y7U2I3"}, ""),
}

// TestRecordRedactsSecrets: a correction quoting secrets answers with the
// number redacted, and neither the answer nor the stored receipts hold them.
func TestRecordRedactsSecrets(t *testing.T) {
	e := newTestEnv(t, nil)
	body, _ := json.Marshal(map[string]any{
		"text":         "stop pasting tokens like " + testSecrets[0] + " into shell commands",
		"rule_id":      ruleSed,
		"agent_output": "export AWS_ACCESS_KEY_ID=" + testSecrets[1],
	})
	r := e.post("/v1/corrections", string(body))
	mustStatus(t, r, 201)
	var resp struct {
		Redacted *int `json:"redacted"`
	}
	r.json(t, &resp)
	if resp.Redacted == nil || *resp.Redacted != 2 {
		t.Fatalf("redacted = %v, want 2: %s", resp.Redacted, r.body)
	}
	h := e.get("/v1/rules/" + ruleSed + "/history")
	mustStatus(t, h, 200)
	for _, s := range testSecrets {
		if strings.Contains(string(h.body), s) || strings.Contains(string(r.body), s) {
			t.Fatalf("secret %q stored or answered: %s", s, h.body)
		}
	}
	for _, p := range []string{"[REDACTED:github-pat]", "[REDACTED:aws-access-token]"} {
		if !strings.Contains(string(h.body), p) {
			t.Errorf("history has no %s: %s", p, h.body)
		}
	}

	clean := e.post("/v1/corrections", `{"text":"`+textAuto+`"}`)
	mustStatus(t, clean, 201)
	var m map[string]any
	clean.json(t, &m)
	if fmt.Sprint(m["redacted"]) != "0" {
		t.Errorf("clean correction: redacted = %v, want 0", m["redacted"])
	}
}
