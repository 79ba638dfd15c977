package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestBadInput checks that every malformed invocation gets the right exit
// code and a message naming what was wrong, and writes nothing.
func TestBadInput(t *testing.T) {
	c := newCLI(t)
	c.mustAddRule("tool.no-sed", "tool_preference", "must")
	c.mustJSON("registry", "sync") // what the first classifying command would do
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantMsg  string
	}{
		{"unknown severity", []string{"rules", "add", "--rule", "a.b", "--category", "x", "--severity", "urgent", "--text", "t"}, 2, `unknown severity "urgent"`},
		{"bad rule id", []string{"rules", "add", "--rule", "Bad ID!", "--category", "x", "--text", "t"}, 2, `malformed rule id "Bad ID!"`},
		{"bad category", []string{"rules", "add", "--rule", "a.b", "--category", "Not A Word", "--text", "t"}, 2, "malformed category"},
		{"empty rule text", []string{"rules", "add", "--rule", "a.b", "--category", "x", "--text", "   "}, 2, "rule text is empty"},
		{"duplicate rule", []string{"rules", "add", "--rule", "tool.no-sed", "--category", "x", "--text", "t"}, 1, "tool.no-sed"},
		{"missing required flag", []string{"rules", "add", "--rule", "a.b", "--text", "t"}, 2, `"category" not set`},
		{"empty correction text", []string{"record", "--rule", "tool.no-sed", "--text", ""}, 2, "correction text is empty"},
		{"invalid UTF-8 text", []string{"record", "--rule", "tool.no-sed", "--text", "bad \xff byte"}, 2, "not valid UTF-8"},
		{"unknown rule", []string{"record", "--rule", "tool.nope", "--text", "x"}, 1, "tool.nope"},
		{"malformed time", []string{"record", "--rule", "tool.no-sed", "--text", "x", "--at", "yesterday"}, 2, `--at "yesterday" is not an RFC 3339 time`},
		{"future time", []string{"record", "--rule", "tool.no-sed", "--text", "x", "--at", "2099-01-01T00:00:00Z"}, 2, "is in the future"},
		{"bad rule id on record", []string{"record", "--rule", "../etc", "--text", "x"}, 2, "malformed rule id"},
		{"odd scope tag", []string{"record", "--rule", "tool.no-sed", "--text", "x", "--tag", "a b"}, 2, `context tag "a b" has characters that are not allowed`},
		{"SQL in scope", []string{"record", "--rule", "tool.no-sed", "--text", "x", "--project", "x'; DROP TABLE persona_rules;--"}, 2, "scope project"},
		{"unknown flag", []string{"record", "--rule", "tool.no-sed", "--text", "x", "--colour"}, 2, "unknown flag: --colour"},
		{"unknown command", []string{"recrod"}, 2, `unknown command "recrod"`},
		{"record without text", []string{"record", "--rule", "tool.no-sed"}, 2, "lexsona record wants the correction text, as arguments or with --text"},
		{"record text twice", []string{"record", "--rule", "tool.no-sed", "--text", "x", "y"}, 2, "give the correction text once, as arguments or with --text, not both"},
		{"record empty argument", []string{"record", "--rule", "tool.no-sed", " "}, 2, "correction text is empty"},
		{"classify without text", []string{"classify"}, 2, "lexsona classify wants the correction text"},
		{"allowed host not a host name", []string{"serve", "--allowed-hosts", "ok.example,bad/host"}, 2, `--allowed-hosts: allowed host "bad/host" is not a host name`},
		{"negative config value", []string{"config", "set", "max_rules", "-5"}, 2, "to pass the negative number -5 as a value, put -- before it"},
		{"negative config value after --", []string{"config", "set", "max_rules", "--", "-5"}, 2, "config max_rules: -5 is out of range [1, 10000]"},
		{"extra argument", []string{"migrate", "now"}, 2, "takes no arguments"},
		{"snapshot negative max", []string{"snapshot", "--max", "-1"}, 2, "--max -1"},
		{"snapshot absurd max", []string{"snapshot", "--max", "99999999"}, 2, "--max 99999999"},
		{"snapshot bad now", []string{"snapshot", "--now", "2025-13-45"}, 2, "--now"},
		{"snapshot bad format", []string{"snapshot", "--format", "xml"}, 2, `--format "xml"`},
		{"why unknown rule", []string{"why", "tool.nope"}, 1, "tool.nope"},
		{"config unknown key", []string{"config", "set", "colour", "red"}, 2, `unknown config key "colour"`},
		{"config misspelt key", []string{"config", "set", "max_rulez", "3"}, 2, `unknown config key "max_rulez" (did you mean "max_rules"?): the keys are alpha_prior, beta_prior, c_min,`},
		{"config misspelt category", []string{"config", "set", "category.tool_preferance.n_min", "3"}, 2, `did you mean "category.tool_preference.n_min"?`},
		{"config misspelt category field", []string{"config", "set", "category.code_style.nmin", "3"}, 2, `did you mean "category.code_style.n_min"?`},
		{"empty category", []string{"rules", "add", "--rule", "a.b", "--category", "", "--text", "t"}, 2, "category is required: one of tool_preference"},
		{"config NaN", []string{"config", "set", "c_min", "NaN"}, 2, "not a finite number"},
		{"config out of range", []string{"config", "set", "c_min", "7"}, 2, "out of range"},
		{"rules list unknown source", []string{"rules", "list", "--source", "bogus"}, 2, `unknown source "bogus": want registry, user or correction`},
		{"edit nothing", []string{"rules", "edit", "tool.no-sed"}, 2, "nothing to change"},
		{"edit bad severity", []string{"rules", "edit", "tool.no-sed", "--severity", "huge"}, 2, "unknown severity"},
		{"edit unknown rule", []string{"rules", "edit", "tool.nope", "--text", "x"}, 1, "tool.nope"},
		{"accept a non-candidate", []string{"rules", "accept", "tool.no-sed"}, 1, "is active-eligible, not a candidate: there is nothing to accept"},
		{"serve bad idempotency TTL", []string{"serve", "--addr", "127.0.0.1:0", "--idempotency-ttl", "a day"}, 2, `--idempotency-ttl "a day": want a duration of at least 1m`},
		{"serve idempotency TTL too short", []string{"serve", "--addr", "127.0.0.1:0", "--idempotency-ttl", "30s"}, 2, `--idempotency-ttl "30s"`},
		{"serve in-flight bound below one request", []string{"serve", "--addr", "127.0.0.1:0", "--max-texts-in-flight", "100"}, 2, `--max-texts-in-flight must be at least 2048`},
	}
	before := c.state()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := c.run(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantMsg) {
				t.Errorf("stderr %q does not name %q", stderr, tt.wantMsg)
			}
			if after := c.state(); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func TestJSONErrors(t *testing.T) {
	c := newCLI(t)
	code, _, stderr := c.run("record", "--json", "--rule", "tool.nope", "--text", "x")
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if code != 1 || json.Unmarshal([]byte(stderr), &e) != nil || e.Error.Code != "not_found" || !strings.Contains(e.Error.Message, "tool.nope") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
}

// state summarises everything the database holds: rules, their evidence and
// their event counts, and the config.
func (c *cli) state() string {
	c.tb.Helper()
	code, out, errs := c.run("rules", "list", "--json")
	if code != 0 {
		c.tb.Fatalf("rules list: %s", errs)
	}
	var l struct {
		Rules []struct {
			RuleID string  `json:"rule_id"`
			Alpha  float64 `json:"alpha"`
			Beta   float64 `json:"beta"`
			Text   string  `json:"text"`
			Status string  `json:"status"`
		} `json:"rules"`
	}
	json.Unmarshal([]byte(out), &l)
	var b strings.Builder
	for _, r := range l.Rules {
		fmt.Fprintf(&b, "%s %s %s alpha=%g beta=%g events=%d;", r.RuleID, r.Text, r.Status, r.Alpha, r.Beta, c.eventCount(r.RuleID))
	}
	_, cfg, _ := c.run("config", "show", "--json")
	return b.String() + cfg
}
