package mcp

import (
	"fmt"
	"strings"
	"testing"
)

func TestMCPRecordRedactsSecrets(t *testing.T) {
	e := newTestEnv(t, nil)
	cs := mcpSession(t, e.srv)
	text, s, isErr := callTool(t, cs, "record_correction", map[string]any{"text": "never commit " + testSecrets[0], "rule_id": ruleSed})
	if isErr || fmt.Sprint(s["redacted"]) != "1" || strings.Contains(text, testSecrets[0]) {
		t.Fatalf("record_correction: err %v redacted %v: %s", isErr, s["redacted"], text)
	}
}
