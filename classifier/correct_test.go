package classifier

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

func TestParseExplicit(t *testing.T) {
	tests := []struct {
		name, text      string
		id, explanation string
		ok              bool
		code            string // expected error code, "" for none
	}{
		{"canonical", "CORRECT[tool.no-sed-for-file-editing]: use the replace tool", "tool.no-sed-for-file-editing", "use the replace tool", true, ""},
		{"lowercase and spaces", "  correct [ tool.x ] : why", "tool.x", "why", true, ""},
		{"mixed case", "Correct[style.tabs]:  tabs please  ", "style.tabs", "tabs please", true, ""},
		{"newlines around", "\n\tCORRECT\n[a.b]\n:\nbecause\n", "a.b", "because", true, ""},
		{"empty explanation", "CORRECT[a]:", "a", "", true, ""},
		{"colon inside explanation", "CORRECT[a.b]: x: y", "a.b", "x: y", true, ""},
		{"plain text", "stop using sed", "", "", false, ""},
		{"keyword as a word", "Correct the typo please", "", "", false, ""},
		{"keyword prefix of a word", "corrections[a]: x", "", "", false, ""},
		{"keyword not at start", "please CORRECT[a.b]: x", "", "", false, ""},
		{"empty", "", "", "", false, ""},
		{"keyword only", "correct", "", "", false, ""},
		{"no closing bracket", "CORRECT[a.b: x", "", "", false, engine.EINVALID},
		{"no colon", "CORRECT[a.b] x", "", "", false, engine.EINVALID},
		{"empty id", "CORRECT[]: x", "", "", false, engine.EINVALID},
		{"uppercase id", "CORRECT[Tool.X]: x", "", "", false, engine.EINVALID},
		{"space in id", "CORRECT[tool x]: x", "", "", false, engine.EINVALID},
		{"trailing dot", "CORRECT[tool.]: x", "", "", false, engine.EINVALID},
		{"invalid utf8 id", "CORRECT[\xff]: x", "", "", false, engine.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, expl, ok, err := ParseExplicit(tt.text)
			if got := engine.ErrorCode(err); got != tt.code {
				t.Fatalf("ParseExplicit(%q) error = %v, want code %q", tt.text, err, tt.code)
			}
			if id != tt.id || expl != tt.explanation || ok != tt.ok {
				t.Errorf("ParseExplicit(%q) = %q, %q, %v; want %q, %q, %v", tt.text, id, expl, ok, tt.id, tt.explanation, tt.ok)
			}
		})
	}
}

func TestParseExplicitErrorNamesID(t *testing.T) {
	_, _, _, err := ParseExplicit("CORRECT[Bad Id]: x")
	if msg := engine.ErrorMessage(err); !strings.Contains(msg, `"Bad Id"`) {
		t.Errorf("error %q does not name the id", msg)
	}
}

// FuzzParseExplicit checks that ParseExplicit never panics, that ok and err
// exclude each other, and that ok implies a valid rule id.
func FuzzParseExplicit(f *testing.F) {
	for _, s := range []string{"CORRECT[a.b]: x", "  correct [ tool.x ] : why", "correct", "CORRECT[", "CORRECT[]", "CORRECT[a]", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		id, expl, ok, err := ParseExplicit(text)
		if ok && err != nil {
			t.Fatalf("ok and error %v", err)
		}
		if err != nil && engine.ErrorCode(err) != engine.EINVALID {
			t.Fatalf("error code %q, want %q", engine.ErrorCode(err), engine.EINVALID)
		}
		if !ok {
			if id != "" || expl != "" {
				t.Fatalf("not ok but id %q explanation %q", id, expl)
			}
			return
		}
		if verr := engine.ValidateRuleID(id); verr != nil {
			t.Fatalf("ok with invalid id %q: %v", id, verr)
		}
		if utf8.ValidString(text) && !utf8.ValidString(expl) {
			t.Fatalf("explanation %q of valid UTF-8 text is not valid UTF-8", expl)
		}
	})
}
