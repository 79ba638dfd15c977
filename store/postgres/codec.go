package postgres

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// timeLayout is RFC 3339 in UTC with a fixed nine-digit fraction, the
// layout of every stored time: it keeps nanoseconds and sorts as text
// (time.RFC3339Nano drops trailing zeros).
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTime reads a stored time (any RFC 3339 text).
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// nullStr stores "" as NULL.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// tagsArg stores a tag list as a text[], or NULL when it is empty.
func tagsArg(tags []string) any {
	if len(tags) == 0 {
		return nil
	}
	return tags
}

// scopeJSON stores an event's or confirmation's scope as a JSON object.
func scopeJSON(s engine.Scope) string {
	if s.Environment == "" && s.Project == "" && s.AgentFamily == "" && len(s.ContextTags) == 0 && len(s.ExcludeTags) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func parseScope(s string) (engine.Scope, error) {
	var out engine.Scope
	if s == "" || s == "{}" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return out, fmt.Errorf("store: stored scope %q: %w", s, err)
	}
	return out, nil
}

// candidatesJSON stores classifier candidates as a JSON array, NULL when none.
func candidatesJSON(c []engine.Candidate) any {
	if len(c) == 0 {
		return nil
	}
	b, _ := json.Marshal(c)
	return string(b)
}

func parseCandidates(s string) ([]engine.Candidate, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var out []engine.Candidate
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("store: stored candidates %q: %w", s, err)
	}
	return out, nil
}

// encodeVector packs v as float32 little-endian (the SQLite driver's
// encoding, so vectors move between the two unchanged).
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// decodeVector unpacks a float32 little-endian bytea into dst (len(b)/4 values).
func decodeVector(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
