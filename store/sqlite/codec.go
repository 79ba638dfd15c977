package sqlite

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// timeLayout is RFC 3339 in UTC with a fixed nine-digit fraction, so stored
// times sort correctly as text (time.RFC3339Nano drops trailing zeros).
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTime reads a stored time: the fixed layout on a fast path, any RFC
// 3339 text otherwise.
func parseTime(s string) (time.Time, error) {
	if len(s) == len(timeLayout) && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' &&
		s[16] == ':' && s[19] == '.' && s[29] == 'Z' {
		num := func(i, j int) (int, bool) {
			n := 0
			for ; i < j; i++ {
				c := s[i]
				if c < '0' || c > '9' {
					return 0, false
				}
				n = n*10 + int(c-'0')
			}
			return n, true
		}
		y, ok1 := num(0, 4)
		mo, ok2 := num(5, 7)
		d, ok3 := num(8, 10)
		h, ok4 := num(11, 13)
		mi, ok5 := num(14, 16)
		se, ok6 := num(17, 19)
		ns, ok7 := num(20, 29)
		if ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h < 24 && mi < 60 && se < 60 {
			return time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC), nil
		}
	}
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

// tagsJSON stores a tag list as a JSON array, or NULL when it is empty. Tags
// are validated scope values, so they need no escaping.
func tagsJSON(tags []string) any {
	if len(tags) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range tags {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(quoteJSON(t))
	}
	b.WriteByte(']')
	return b.String()
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// parseTags reads a JSON tag array; "" (NULL) is no tags. Arrays of plain
// strings without escapes take a fast path.
func parseTags(s string) ([]string, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' && !strings.ContainsAny(s, `\ `) {
		var out []string
		for _, part := range strings.Split(s[1:len(s)-1], ",") {
			if len(part) < 2 || part[0] != '"' || part[len(part)-1] != '"' {
				out = nil
				break
			}
			out = append(out, part[1:len(part)-1])
		}
		if out != nil {
			return out, nil
		}
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("store: stored tag list %q: %w", s, err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
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

// encodeVector packs v as float32 little-endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// decodeVector unpacks a float32 little-endian BLOB into dst (len(b)/4 values).
func decodeVector(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}
