package mcp

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// The SDK answers a request whose params do not decode with the decoder's
// own text, which names Go types ("cannot unmarshal \"5}\" into Go struct
// field mcp.ListToolsParams.cursor of type string"), sometimes with code 0.
// cleanFrame rewrites such answers, on their way out, into what the client
// can act on: "invalid params of 'tools/list': field \"cursor\" must be a
// string", code -32602.

var (
	goTypeDetail  = regexp.MustCompile(`Go (?:struct field|value of type) `)
	goStructField = regexp.MustCompile(`Go struct field \*?\w+\.\w+\.([\w.]+) of type (\S+)`)
	goValueType   = regexp.MustCompile(`Go value of type (.+?)$`)
	handlingWhat  = regexp.MustCompile(`^handling '([^']+)'`)
)

// rpcInvalidParams is JSON-RPC's invalid-params code.
const rpcInvalidParams = -32602

// cleanFrame returns frame with Go type detail replaced in an error answer's
// message and in the text of a failed tool call; other frames come back as
// they are.
func cleanFrame(frame []byte) []byte {
	if !bytes.Contains(frame, []byte("Go ")) {
		return frame
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(frame, &m) != nil {
		return frame
	}
	changed := false
	if raw, ok := m["error"]; ok {
		var e map[string]any
		if json.Unmarshal(raw, &e) == nil {
			if msg, ok := e["message"].(string); ok && goTypeDetail.MatchString(msg) {
				e["message"], e["code"] = cleanMessage(msg), rpcInvalidParams
				m["error"], _ = json.Marshal(e)
				changed = true
			}
		}
	}
	if raw, ok := m["result"]; ok {
		var r struct {
			Content []map[string]any `json:"content"`
			IsError bool             `json:"isError"`
		}
		if json.Unmarshal(raw, &r) == nil && r.IsError {
			var full map[string]any
			_ = json.Unmarshal(raw, &full)
			for _, c := range r.Content {
				if text, ok := c["text"].(string); ok && goTypeDetail.MatchString(text) {
					c["text"] = cleanMessage(text)
					changed = true
				}
			}
			if changed {
				full["content"] = r.Content
				m["result"], _ = json.Marshal(full)
			}
		}
	}
	if !changed {
		return frame
	}
	out, err := json.Marshal(m)
	if err != nil {
		return frame
	}
	return append(out, '\n')
}

// cleanMessage turns a decoding error's text into one without Go types.
func cleanMessage(msg string) string {
	what := "the params"
	if h := handlingWhat.FindStringSubmatch(msg); h != nil {
		what = "the params of '" + h[1] + "'"
	}
	if f := goStructField.FindStringSubmatch(msg); f != nil {
		return "invalid params: in " + what + ", field \"" + f[1] + "\" must be " + kindOfGoType(f[2])
	}
	if v := goValueType.FindStringSubmatch(msg); v != nil {
		if strings.Contains(msg, "unmarshaling arguments") {
			what = "\"arguments\""
		}
		return "invalid params: " + what + " must be " + kindOfGoType(v[1])
	}
	return "invalid params: " + what + " do not have the expected shape"
}

// kindOfGoType names the JSON kind a Go type decodes from.
func kindOfGoType(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}
