package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/server/servertest"
)

// rpcAnswer is one line the MCP server wrote.
type rpcAnswer struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

const mcpInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// runMCPScript serves one stdio session of s over script (after
// initialize), as Serve does, and returns the answers in order.
func runMCPScript(t *testing.T, s *Server, script string) []rpcAnswer {
	t.Helper()
	var out testenv.SyncBuffer
	if err := s.serve(context.Background(), strings.NewReader(mcpInit+script), &out); err != nil {
		t.Fatalf("serve: %v", err)
	}
	var answers []rpcAnswer
	sc := bufio.NewScanner(bytes.NewReader([]byte(out.String())))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		a := rpcAnswer{raw: sc.Text()}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("stdout line is not JSON: %.300s", sc.Text())
		}
		answers = append(answers, a)
	}
	return answers
}

// goTypeNames matches what would reveal Go types in a message.
var goTypeNames = regexp.MustCompile(`Go (struct|value)|\*?mcp\.[A-Z]|\bjsonrpc2\b|interface \{\}|\bint64\b|\bfloat64\b|server\.[a-z]`)

// TestMCPFramesThatAreNotMessages: every frame that is valid JSON but not one
// JSON-RPC 2.0 message gets a JSON-RPC error with id null and the session
// goes on (a ping after each is answered); a float id is never answered as
// another id; no answer shows Go type names.
func TestMCPFramesThatAreNotMessages(t *testing.T) {
	s := newFakeServer(t, Config{}, &servertest.Memory{}, nil)
	bad := []struct {
		frame string
		code  int
	}{
		{`null`, -32600},
		{`{}`, -32600},
		{`[]`, -32600},
		{`42`, -32600},
		{`"ping"`, -32600},
		{`true`, -32600},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600},
		{`[{"jsonrpc":"2.0","id":900,"method":"ping"}]`, -32600},
		{`[{"jsonrpc":"2.0","id":901,"method":"ping"},{"jsonrpc":"2.0","id":902,"method":"ping"}]`, -32600},
		{`{"jsonrpc":"2.0","id":903,"method":123}`, -32600},
		{`{"jsonrpc":"2.0","id":904,"method":null}`, -32600},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":-0.25,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1e300,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":4503599627370496.5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"1.0","id":905,"method":"ping"}`, -32600},
		{`{"id":906,"method":"ping"}`, -32600},
		{`{"jsonrpc":2,"id":907,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","result":{}}`, -32600},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, -32600},
		{`{"jsonrpc":"2.0","id":908,"error":5}`, -32600},
		{`{"jsonrpc":"2.0","id":909,"error":{"code":"x","message":"m"}}`, -32600},
		{`{"jsonrpc":"2.0","id":910,"method":"ping","params":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`, -32600},
		{"{\"jsonrpc\":\"2.0\",\"id\":911,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", -32700},
		{`{"jsonrpc":"2.0","id":912,"method":"ping"`, -32700},
	}
	var script strings.Builder
	for i, b := range bad {
		fmt.Fprintf(&script, "%s\n{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", b.frame, i+1)
	}
	// Answered as sent: integral ids, whatever their spelling.
	script.WriteString(`{"jsonrpc":"2.0","id":1.0e2,"method":"ping"}` + "\n")
	script.WriteString(`{"jsonrpc":"2.0","id":"s-1","method":"ping"}` + "\n")
	answers := runMCPScript(t, s, script.String())

	var errs []rpcAnswer
	pongs := map[string]bool{}
	for _, a := range answers {
		if goTypeNames.MatchString(a.raw) {
			t.Errorf("an answer shows Go type names: %s", a.raw)
		}
		if a.Error != nil {
			errs = append(errs, a)
			continue
		}
		pongs[string(a.ID)] = true
	}
	if len(errs) != len(bad) {
		t.Fatalf("%d error answers for %d bad frames:\n%s", len(errs), len(bad), joinRaw(answers))
	}
	for i, b := range bad {
		if errs[i].Error.Code != b.code || string(errs[i].ID) != "null" {
			t.Errorf("frame %.60s: answer %s, want code %d with id null", b.frame, errs[i].raw, b.code)
		}
		if id := fmt.Sprint(i + 1); !pongs[id] {
			t.Errorf("the ping after frame %.60s (id %s) was not answered: the session did not go on", b.frame, id)
		}
	}
	for _, id := range []string{"100", `"s-1"`, `"init"`} {
		if !pongs[id] {
			t.Errorf("no answer with id %s:\n%s", id, joinRaw(answers))
		}
	}
	valid := map[string]bool{"100": true, `"s-1"`: true, `"init"`: true}
	for i := range bad {
		valid[fmt.Sprint(i+1)] = true
	}
	for id := range pongs {
		if !valid[id] {
			t.Errorf("answered an id that was never sent as a valid id: %s", id)
		}
	}
}

func joinRaw(as []rpcAnswer) string {
	var b strings.Builder
	for _, a := range as {
		b.WriteString(a.raw[:min(len(a.raw), 300)] + "\n")
	}
	return b.String()
}

// TestMCPParamErrorsNameNoGoTypes: params of the wrong JSON type are answered
// with -32602 and a message naming the field and the kind wanted, never the
// SDK's Go types, and the session goes on.
func TestMCPParamErrorsNameNoGoTypes(t *testing.T) {
	s := newFakeServer(t, Config{}, &servertest.Memory{}, nil)
	script := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":5}}`,
		`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":5}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping","params":5}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"record_correction","arguments":"str"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	}, "\n") + "\n"
	answers := runMCPScript(t, s, script)
	byID := map[string]rpcAnswer{}
	for _, a := range answers {
		byID[string(a.ID)] = a
		if goTypeNames.MatchString(a.raw) {
			t.Errorf("an answer shows Go type names: %s", a.raw)
		}
	}
	for id, want := range map[string]string{
		"1": "params of 'tools/call' must be an object",
		"2": `field "cursor" must be a string`,
		"3": `field "level" must be a string`,
		"4": `field "name" must be a string`,
		"5": "params of 'ping' must be an object",
	} {
		a := byID[id]
		if a.Error == nil || a.Error.Code != -32602 || !strings.Contains(a.Error.Message, want) {
			t.Errorf("id %s: %s, want -32602 with %q", id, a.raw, want)
		}
	}
	if a := byID["6"]; !strings.Contains(string(a.Result), `\"arguments\" must be an object`) {
		t.Errorf("id 6: %s", a.raw)
	}
	if a := byID["7"]; a.Error != nil || a.Result == nil {
		t.Errorf("the session did not go on: %s", joinRaw(answers))
	}
}

// TestMCPLargeFrame: a frame between the SDK's own line limit (16 MiB) and
// the one frame limit (64 MiB) is read whole and answered, and the session
// goes on.
func TestMCPLargeFrame(t *testing.T) {
	var got int
	s := newFakeServer(t, Config{}, &servertest.Memory{ClassifyFn: func(_ context.Context, text string, _ engine.Scope) (classifier.Result, error) {
		got = len(text)
		return classifier.Result{}, engine.Errorf(engine.ETOOLARGE, "correction text is %d bytes long", len(text))
	}}, nil)
	big := strings.Repeat("use rg ", (20<<20)/7)
	script := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"classify_correction","arguments":{"text":"` + big + `"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	answers := runMCPScript(t, s, script)
	byID := map[string]rpcAnswer{}
	for _, a := range answers {
		byID[string(a.ID)] = a
	}
	if a, ok := byID["1"]; !ok || !strings.Contains(a.raw, "too_large: correction text is") {
		t.Errorf("the 20 MiB frame: %.300s, want the tool error classify_correction gave", a.raw)
	}
	if got != len(big) {
		t.Errorf("classify_correction got a text of %d bytes, want the frame's %d", got, len(big))
	}
	if a, ok := byID["2"]; !ok || a.Error != nil {
		t.Errorf("the session did not go on after the 20 MiB frame:\n%s", joinRaw(answers))
	}
}

// TestMCPRefusesInvalidUTF8: a record_correction whose text holds invalid
// UTF-8 is refused as HTTP refuses such a body (a parse error here), and
// nothing is recorded.
func TestMCPRefusesInvalidUTF8(t *testing.T) {
	mem := &servertest.Memory{}
	s := newFakeServer(t, Config{}, mem, nil)
	script := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"record_correction\",\"arguments\":{\"text\":\"stop using sed \xff\xfe\",\"rule_id\":\"" + ruleSed + "\"}}}\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	answers := runMCPScript(t, s, script)
	if len(answers) < 3 || answers[1].Error == nil || answers[1].Error.Code != -32700 || !strings.Contains(answers[1].Error.Message, "UTF-8") {
		t.Fatalf("answers:\n%s\nwant a -32700 parse error naming UTF-8 after initialize", joinRaw(answers))
	}
	if len(mem.Called()) != 0 {
		t.Errorf("the refused frame reached the memory: %v", mem.Called())
	}
}
