package claudecli

import (
	"encoding/json"
	"strings"
)

// The requests the stand-in records, and the parts of a Messages API request
// body the tests read.

// Request is one request the stand-in received.
type Request struct {
	Method, Path string
	Body         []byte
	// Main is true for a request of the session's own agent loop (it offers
	// the Bash tool, see isMainLoop), false for a side request.
	Main bool
	// Msg is Body decoded, for the Messages routes.
	Msg MessagesRequest
}

// MessagesRequest is the part of a Messages API request body the tests read.
type MessagesRequest struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Messages []Message       `json:"messages"`
	Tools    []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

// Message is one message of a request; Content is a string or a list of
// blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Block is one content block of a message.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// Blocks is m's content as blocks (a string content is one text block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// blockText is the text of b: its text, or for a tool_result the text of
// its content (a string or a list of text blocks).
func blockText(b Block) string {
	if b.Type != "tool_result" {
		return b.Text
	}
	return stringOrBlocks(b.Content)
}

// stringOrBlocks is raw as the API writes a text: a JSON string, or a list
// of blocks whose texts are joined by newlines.
func stringOrBlocks(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []Block
	_ = json.Unmarshal(raw, &bs)
	var parts []string
	for _, c := range bs {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// SystemText is the request's system prompt: a string or the texts of its
// blocks, joined by newlines.
func (r MessagesRequest) SystemText() string { return stringOrBlocks(r.System) }

// MessagesText is every text of every message, tool results included,
// joined by newlines.
func (r MessagesRequest) MessagesText() string {
	var parts []string
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			parts = append(parts, blockText(b))
		}
	}
	return strings.Join(parts, "\n")
}

// ToolResults are the tool_result blocks of the request's messages, with
// their text in Text.
func (r MessagesRequest) ToolResults() []Block {
	var out []Block
	for _, m := range r.Messages {
		for _, b := range m.Blocks() {
			if b.Type == "tool_result" {
				b.Text = blockText(b)
				out = append(out, b)
			}
		}
	}
	return out
}
