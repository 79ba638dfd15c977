package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

// TestServeMCPScripted: a client that writes a whole session at once and
// closes stdin (`lexsona mcp < requests.jsonl`) gets every answer, and a
// frame that is not JSON gets a parse error instead of ending the session.
func TestServeMCPScripted(t *testing.T) {
	db := MustOpenStore(t)
	emb := MustLexical(t, db)
	script := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`this is not JSON`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		``,
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"classify_correction","arguments":{"text":"` + textAuto + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"record_correction","arguments":{"text":"` + textAuto + `","rule_id":"` + ruleSed + `"}}}`,
	}, "\n") + "\n"
	var out testenv.SyncBuffer
	if err := Serve(context.Background(), Config{Memory: memoryOver(db), Embedder: emb, Logger: discardLogger()}, strings.NewReader(script), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	answers := map[string]json.RawMessage{}
	parseErrors := 0
	sc := bufio.NewScanner(bytes.NewReader([]byte(out.String())))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %s", sc.Text())
		}
		if m.Error != nil && m.Error.Code == -32700 && string(m.ID) == "null" {
			parseErrors++
			continue
		}
		if m.Error != nil {
			t.Errorf("error answer: %s", sc.Text())
		}
		answers[string(m.ID)] = m.Result
	}
	if parseErrors != 1 {
		t.Errorf("%d parse errors, want 1 for the one frame that is not JSON:\n%s", parseErrors, out.String())
	}
	for _, id := range []string{`1`, `2`, `"three"`, `4`} {
		if answers[id] == nil {
			t.Errorf("no answer to request %s:\n%s", id, out.String())
		}
	}
	if !strings.Contains(string(answers[`2`]), `"review_candidate"`) {
		t.Errorf("tools/list: %s", answers[`2`])
	}
	if r, err := db.GetRule(t.Context(), ruleSed); err != nil || r.Reinforcements != 1 {
		t.Errorf("record_correction: %d reinforcements (%v), want 1", r.Reinforcements, err)
	}
}

// TestReadFrameLimit: a line over the limit is consumed whole and reported as
// too long, with no bytes (even when its tail would be JSON), and the next
// line is read normally.
func TestReadFrameLimit(t *testing.T) {
	long := `{"pad":"` + strings.Repeat("x", 5000) + `","a":1}`
	r := bufio.NewReaderSize(strings.NewReader(long+"\n"+`{"ok":true}`+"\n"), 16)
	first, tooLong, err := readFrame(r, 1000)
	if err != nil || !tooLong || len(first) != 0 {
		t.Fatalf("over-long frame: %q, too long %v, %v", first, tooLong, err)
	}
	second, tooLong, err := readFrame(r, 1000)
	if err != nil || tooLong || string(bytes.TrimSpace(second)) != `{"ok":true}` {
		t.Fatalf("next frame: %q, too long %v, %v", second, tooLong, err)
	}
}
