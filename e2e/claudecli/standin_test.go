package claudecli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// Turn is one canned answer of the model: a text, or a tool call (ToolName
// with ToolInput) preceded by Text when that is not empty.
type Turn struct {
	Text      string
	ToolName  string
	ToolInput map[string]any
}

// StandIn is an Anthropic Messages API on 127.0.0.1 that answers the
// session's own requests from a script of turns, one turn per request, and
// every side request with a short text.
//
// Claude Code sends two kinds of POST /v1/messages. Its agent loop's offer
// the session's tools (Agent, Bash, Edit, Read, Write, ... with the default
// tool set). Its side requests offer none: a "prompt" hook's evaluation (same
// model, a JSON-schema output_config, no tools), and, in interactive use or
// without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, a session title or a
// check on a small model. isMainLoop tells them apart by the Bash tool, so a
// side request never consumes a turn; when the script is spent, a main
// request gets that short text too. POST /v1/messages/count_tokens gets a
// token count, HEAD or GET /api/hello (Claude Code's reachability check)
// 200, and any other route 404, listed by Unknown.
type StandIn struct {
	URL string

	mu       sync.Mutex
	script   []Turn
	requests []Request
	unknown  []string
	nextID   int
}

// sideText is what every side request, and a main request past the end of
// the script, is answered.
const sideText = "stand-in side answer"

// NewStandIn starts a stand-in answering script on 127.0.0.1; it stops at
// the test's end.
func NewStandIn(tb testing.TB, script ...Turn) *StandIn {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &StandIn{URL: "http://" + ln.Addr().String(), script: script}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return s
}

// Requests is every request received so far, in order.
func (s *StandIn) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MainRequests is the agent loop's Messages requests, in order.
func (s *StandIn) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// Unknown is the method and path of every request to a route the stand-in
// does not implement (each answered 404).
func (s *StandIn) Unknown() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unknown...)
}

// Left is how many turns of the script are still unanswered.
func (s *StandIn) Left() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// isMainLoop reports whether a Messages request comes from the session's
// agent loop: it offers the Bash tool.
func isMainLoop(m MessagesRequest) bool {
	for _, t := range m.Tools {
		if t.Name == "Bash" {
			return true
		}
	}
	return false
}

func (s *StandIn) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	isMessages := r.Method == http.MethodPost && (r.URL.Path == "/v1/messages" || r.URL.Path == "/v1/messages/count_tokens")
	isHello := (r.Method == http.MethodHead || r.Method == http.MethodGet) && r.URL.Path == "/api/hello"
	if isMessages {
		if err := json.Unmarshal(body, &req.Msg); err != nil {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"body is not JSON"}}`, http.StatusBadRequest)
			return
		}
		req.Main = r.URL.Path == "/v1/messages" && isMainLoop(req.Msg)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	turn := Turn{Text: sideText}
	if req.Main && len(s.script) > 0 {
		turn, s.script = s.script[0], s.script[1:]
	}
	s.nextID++
	id := s.nextID
	if !isMessages && !isHello {
		s.unknown = append(s.unknown, r.Method+" "+r.URL.String())
	}
	s.mu.Unlock()

	switch {
	case isHello:
		writeJSON(w, map[string]any{"message": "hello"})
	case !isMessages:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"the stand-in has no such route"}}`)
	case r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
	case req.Msg.Stream:
		writeStream(w, id, req.Msg.Model, turn)
	default:
		writeJSON(w, message(id, req.Msg.Model, turn, true))
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// content is t's content blocks, whole.
func (t Turn) content(id int) []map[string]any {
	var out []map[string]any
	if t.Text != "" {
		out = append(out, map[string]any{"type": "text", "text": t.Text})
	}
	if t.ToolName != "" {
		out = append(out, map[string]any{"type": "tool_use", "id": toolUseID(id), "name": t.ToolName, "input": t.ToolInput})
	}
	return out
}

func (t Turn) stopReason() string {
	if t.ToolName != "" {
		return "tool_use"
	}
	return "end_turn"
}

func toolUseID(id int) string { return fmt.Sprintf("toolu_standin%04d", id) }

// message is the Messages API's message object answering with t; with
// whole, its content and stop reason are there (a non-streamed answer),
// else empty, as message_start carries them.
func message(id int, model string, t Turn, whole bool) map[string]any {
	m := map[string]any{
		"id": fmt.Sprintf("msg_standin%04d", id), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}
	if whole {
		m["content"] = t.content(id)
		m["stop_reason"] = t.stopReason()
	}
	return m
}

// writeStream answers with t as the Messages API streams it (server-sent
// events): message_start, for each block content_block_start, one
// content_block_delta (text_delta, or input_json_delta with the tool input's
// whole JSON) and content_block_stop, then message_delta with the stop
// reason and message_stop.
func writeStream(w http.ResponseWriter, id int, model string, t Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": message(id, model, t, false)})
	for i, blk := range t.content(id) {
		start, delta := map[string]any{}, map[string]any{}
		switch blk["type"] {
		case "text":
			start = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": blk["text"]}
		case "tool_use":
			start = map[string]any{"type": "tool_use", "id": blk["id"], "name": blk["name"], "input": map[string]any{}}
			in, _ := json.Marshal(blk["input"])
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
		}
		event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": t.stopReason(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
}
