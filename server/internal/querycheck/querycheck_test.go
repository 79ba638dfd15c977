package querycheck

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		accepted  []string
		msg       string // "" when accepted
	}{
		{"empty", "", []string{"a"}, ""},
		{"known", "a=1&b=", []string{"a", "b"}, ""},
		{"escaped semicolon", "a=x%3By", []string{"a"}, ""},
		{"semicolon", "a=1;", []string{"a"}, `"a=1;" contains ";"`},
		{"bad escape", "a=%zz", []string{"a"}, "malformed escape"},
		{"unknown", "ab=1", []string{"a", "b"}, `unknown query parameter "ab": this endpoint reads a, b`},
		{"none read", "a=1", nil, "reads no query parameters"},
		{"twice", "a=1&a=2", []string{"a"}, `"a" is given 2 times`},
		{"not UTF-8", "a=%ff", []string{"a"}, `"a" is not valid UTF-8`},
		{"too many", strings.Repeat("a=1&", MaxParams) + "a=1", []string{"a"}, "10001 parameters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.raw, tc.accepted...)
			switch {
			case tc.msg == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.msg != "" && err == nil:
				t.Fatalf("accepted, want an error with %s", tc.msg)
			case tc.msg != "" && (engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), tc.msg)):
				t.Fatalf("error %v, want EINVALID with %s", err, tc.msg)
			}
		})
	}
}
