package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

// exportLines is an export split into its lines (each with its newline).
func exportLines(export []byte) []string {
	return strings.SplitAfter(strings.TrimSuffix(string(export), "\n"), "\n")
}

// lastLine is the index of the last line of kind in lines.
func lastLine(t *testing.T, lines []string, kind string) int {
	t.Helper()
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], `{"kind":"`+kind+`"`) {
			return i
		}
	}
	t.Fatalf("the export has no %s record", kind)
	return -1
}

// editLine returns lines with line i decoded, changed by edit and encoded
// again.
func editLine(t *testing.T, lines []string, i int, edit func(l *exportLine)) []string {
	t.Helper()
	var l exportLine
	if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
		t.Fatal(err)
	}
	edit(&l)
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	out := append([]string{}, lines...)
	out[i] = string(b) + "\n"
	return out
}

// TestImportRefusedFileWritesNothing: a file with one bad record anywhere
// — the last rule's id, the last event's scope, a config key, the last
// pending confirmation — is refused naming its line, and neither an empty
// memory nor one that has rules of its own changes: no rule, event, text,
// config override, registry or confirmation of the file is written.
func TestImportRefusedFileWritesNothing(t *testing.T) {
	src, srcDB := MustDefaultService(t, Options{})
	fillMemory(t, src, srcDB)
	lines := exportLines(mustExport(t, src))
	rule, event, pending := lastLine(t, lines, "rule"), lastLine(t, lines, "event"), lastLine(t, lines, "pending")
	config := lastLine(t, lines, "config")
	for _, tc := range []struct {
		name  string
		lines []string
		line  int
		msg   string
	}{
		{"the last rule's id", editLine(t, lines, rule, func(l *exportLine) { l.Rule.RuleID = "Not An Id" }), rule, `malformed rule id "Not An Id"`},
		{"the last event's scope", editLine(t, lines, event, func(l *exportLine) { l.Event.Scope.Environment = "two words" }), event, "environment"},
		{"an unknown config key", editLine(t, lines, config, func(l *exportLine) { l.Key = "category.tool_preference.no_such_key" }), config, "no_such_key"},
		{"the last confirmation's polarity", editLine(t, lines, pending, func(l *exportLine) { l.Pending.Polarity = 7 }), pending, "polarity 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := strings.Join(tc.lines, "")
			for _, into := range []string{"empty", "not empty"} {
				s, db := newService(t, "sqlite")
				if into == "not empty" {
					s, db = MustDefaultService(t, Options{})
					MustRecord(t, s, engine.Correction{RuleID: "tool.no-sed-for-file-editing", UserText: "no sed please", At: t0})
				}
				before, rows := normalized(t, mustExport(t, s)), MustCount(t, db)
				_, err := s.Import(context.Background(), strings.NewReader(file))
				MustCode(t, err, engine.EINVALID)
				want := "line " + itoa(tc.line+1) + ":"
				if msg := engine.ErrorMessage(err); !strings.Contains(msg, want) || !strings.Contains(msg, tc.msg) {
					t.Errorf("into %s memory: message %q does not name %q and say %q", into, msg, want, tc.msg)
				}
				if diff := cmp.Diff(before, normalized(t, mustExport(t, s))); diff != "" || MustCount(t, db) != rows {
					t.Errorf("into %s memory: the refused file changed it (rows %+v → %+v):\n%s", into, rows, MustCount(t, db), diff)
				}
			}
		})
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
