package main

import (
	"encoding/json"
	"testing"
)

// TestRecordTextAsArguments: record takes the correction as arguments, words
// joined with spaces, as classify does; --text still works.
func TestRecordTextAsArguments(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.no-sed", "tool_preference", "must")
	m := c.mustJSON("record", "--rule", "tool.no-sed", "stop", "using sed")
	if m["event_type"] != "reinforcement" || m["rule_id"] != "tool.no-sed" {
		t.Fatalf("record with the text as arguments: %v", m)
	}
	c.mustJSON("record", "--rule", "tool.no-sed", "--text", "no sed please")
	_, out, _ := c.run("why", "--json", "tool.no-sed")
	var w struct {
		History []struct {
			UserText string `json:"user_text"`
		} `json:"history"`
	}
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range w.History {
		if e.UserText != "" {
			texts = append(texts, e.UserText)
		}
	}
	if len(texts) != 2 || texts[0] != "stop using sed" || texts[1] != "no sed please" {
		t.Errorf("stored texts %q, want [stop using sed, no sed please]", texts)
	}
}
