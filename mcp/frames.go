package mcp

import (
	"encoding/json"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// JSON-RPC error codes of frames refused before they reach the SDK.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
)

// maxFrameDepth is the deepest nesting the SDK decodes; a deeper frame would
// end its session.
const maxFrameDepth = 1000

// maxExactID is the largest integer id the SDK answers with the same value:
// it reads numeric ids as float64 and then converts them to int64.
const maxExactID = 1 << 53

// checkFrame returns a JSON-RPC error code and message for a frame the SDK
// must not see, because reading it would end the whole session (the SDK
// treats any message it cannot decode as a broken connection) or because it
// would be answered wrongly; 0 and "" for a frame to pass on. It refuses:
// invalid UTF-8 and what is not JSON (-32700); what is not one JSON-RPC 2.0
// message (-32600): a batch (MCP has none since 2025-06-18), a value that is
// not an object, a missing or wrong "jsonrpc", a "method" that is not a
// string, an "id" that is neither a string, an integer of at most 2^53 nor
// null (a float id would be answered as another, truncated one), a response
// without an id, an "error" member that is not an error object, nesting
// deeper than the SDK reads.
func checkFrame(frame []byte) (int, string) {
	if !utf8.Valid(frame) {
		return rpcParseError, "Parse error: the frame is not valid UTF-8"
	}
	if !json.Valid(frame) {
		return rpcParseError, "Parse error: the frame is not JSON"
	}
	if jsonDepth(frame) > maxFrameDepth {
		return rpcInvalidRequest, "Invalid Request: the message nests deeper than " + strconv.Itoa(maxFrameDepth) + " levels"
	}
	switch frame[0] {
	case '{':
	case '[':
		return rpcInvalidRequest, "Invalid Request: batches are not supported: send one message per line"
	default:
		return rpcInvalidRequest, "Invalid Request: a message must be a JSON object"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(frame, &m); err != nil {
		return rpcInvalidRequest, "Invalid Request: a message must be a JSON object"
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return rpcInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return rpcInvalidRequest, `Invalid Request: "id" must be a string, an integer of at most 2^53 in magnitude, or null`
	}
	hasID = hasID && string(id) != "null"
	if method, ok := m["method"]; ok {
		if len(method) == 0 || method[0] != '"' {
			return rpcInvalidRequest, `Invalid Request: "method" must be a string`
		}
		return 0, ""
	}
	if !hasID {
		return rpcInvalidRequest, `Invalid Request: a message needs a "method" (a request or a notification), or an "id" with a "result" or an "error" (a response)`
	}
	if e, ok := m["error"]; ok && string(e) != "null" {
		var we struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if len(e) == 0 || e[0] != '{' || json.Unmarshal(e, &we) != nil {
			return rpcInvalidRequest, `Invalid Request: "error" must be an object with an integer "code" and a string "message"`
		}
	}
	return 0, ""
}

// validID reports whether raw (a JSON value) is an id the SDK answers as
// sent: null, a string, or an integral number of at most 2^53 in magnitude.
func validID(raw json.RawMessage) bool {
	switch {
	case string(raw) == "null":
		return true
	case raw[0] == '"':
		return true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		// Exactly, not through float64 (which would round 2^53+1 or
		// 2^52+0.5 to an integer); a longer spelling is no id anyone sends
		// and would let an exponent like 1e99999999 cost memory.
		if len(raw) > 32 {
			return false
		}
		r, ok := new(big.Rat).SetString(string(raw))
		return ok && r.IsInt() && r.Num().CmpAbs(big.NewInt(maxExactID)) <= 0
	}
	return false
}

// jsonDepth is the deepest nesting of objects and arrays in a valid JSON
// text.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// rpcErrorFrame is a JSON-RPC error answer; ID stays nil (null) for a frame
// whose id could not be read.
type rpcErrorFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rpcError is the frame (with its newline) of a JSON-RPC error with id null.
func rpcError(code int, msg string) []byte {
	e := rpcErrorFrame{JSONRPC: "2.0", ID: json.RawMessage("null")}
	e.Error.Code, e.Error.Message = code, msg
	b, _ := json.Marshal(e)
	return append(b, '\n')
}
