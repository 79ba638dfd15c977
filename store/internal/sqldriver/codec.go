// Package sqldriver holds what the SQL store drivers (store/sqlite,
// store/postgres) share: the statements of the store's rows, written once
// and rewritten into each database's dialect (Statements, Dialect), and the
// store.Reader and store.DriverTx methods that run them (Queries) over
// each driver's way of running a statement (Conn); how values are stored
// in columns (times, scopes, candidates, tag lists, vectors), how a row
// maps to a rule, an event or a confirmation and back, how the numbered
// migration files are read, and how a driver's errors become what the
// store's callers see. A driver keeps what only its database does: opening,
// transactions, group commit, migrations, faults and checks.
package sqldriver

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TimeLayout is RFC 3339 in UTC with a fixed nine-digit fraction, the
// layout of every stored time: it keeps nanoseconds and sorts correctly as
// text (time.RFC3339Nano drops trailing zeros).
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTime stores t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a stored time: TimeLayout on a fast path, any RFC 3339
// text otherwise. Its error names the text that is not a time.
func ParseTime(s string) (time.Time, error) {
	if t, ok := parseLayout(s); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// parseLayout reads s when it is exactly in TimeLayout with fields in range.
func parseLayout(s string) (time.Time, bool) {
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return time.Time{}, false
	}
	ok := true
	num := func(i, j int) int {
		n := 0
		for ; i < j; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				ok = false
				return 0
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	y, mo, d := num(0, 4), num(5, 7), num(8, 10)
	h, mi, se, ns := num(11, 13), num(14, 16), num(17, 19), num(20, 29)
	if !ok || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59 {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC), true
}

// NullStr stores "" as NULL.
func NullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ScopeJSON stores an event's or confirmation's scope as a JSON object.
func ScopeJSON(s engine.Scope) string {
	if s.Environment == "" && s.Project == "" && s.AgentFamily == "" && len(s.ContextTags) == 0 && len(s.ExcludeTags) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// ParseScope reads a stored scope; "" (NULL) is the empty scope.
func ParseScope(s string) (engine.Scope, error) {
	var out engine.Scope
	if s == "" || s == "{}" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return out, fmt.Errorf("store: stored scope %q: %w", s, err)
	}
	return out, nil
}

// CandidatesJSON stores classifier candidates as a JSON array, NULL when none.
func CandidatesJSON(c []engine.Candidate) any {
	if len(c) == 0 {
		return nil
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// ParseCandidates reads stored candidates; "" (NULL) and "[]" are none (nil).
func ParseCandidates(s string) ([]engine.Candidate, error) {
	if s == "" || s == "[]" {
		return nil, nil
	}
	var out []engine.Candidate
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("store: stored candidates %q: %w", s, err)
	}
	return out, nil
}

// EncodeVector packs v as float32 little-endian, the encoding of every
// driver, so vectors move between databases unchanged.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// DecodeVector unpacks float32 little-endian bytes into dst (len(b)/4 values).
func DecodeVector(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// Slab hands out vectors decoded into one backing array, sized for the
// total length of a load's vectors so that they take one allocation.
type Slab struct{ buf []float32 }

// NewSlab returns a Slab of total floats.
func NewSlab(total int) *Slab { return &Slab{buf: make([]float32, total)} }

// Decode returns the vector encoded in b (EncodeVector's bytes), in the
// slab when it has room left (a new array otherwise).
func (s *Slab) Decode(b []byte) []float32 {
	d := len(b) / 4
	if d > len(s.buf) { // more than sized for: the rows changed in between
		s.buf = make([]float32, d)
	}
	v := s.buf[:d:d]
	s.buf = s.buf[d:]
	DecodeVector(v, b)
	return v
}
