package redact

import (
	"regexp"
	"testing"
)

// quotedOrBare is valueAt's grammar as a regexp: a value in double quotes
// (escaped or not), single or back quotes, or bare after an optional escape
// and quote. valueAt must read what its first non-empty group holds.
var quotedOrBare = regexp.MustCompile("^(?:\\\\?\"([^\"\\n]+?)\\\\?\"|'([^'\\n]+)'|`([^`\\n]+)`|\\\\?[\"'`]?([^\\s\"'`,;&=:][^\\s\"'`,;&]*[^\\s\"'`,;&.?:)\\]}]))")

// TestValueAtGrammar compares valueAt with quotedOrBare on every text of up
// to five bytes over the bytes the grammar tells apart.
func TestValueAtGrammar(t *testing.T) {
	alphabet := []byte("a1\"'`\\ \n,;&=:.)!|-")
	var check func(prefix []byte)
	n := 0
	check = func(prefix []byte) {
		if len(prefix) > 0 {
			n++
			s := string(prefix)
			start, end, ok := valueAt(s, 0, len(s))
			m := quotedOrBare.FindStringSubmatchIndex(s)
			wantOK := m != nil
			var ws, we int
			for g := 2; wantOK && g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					ws, we = m[g], m[g+1]
					break
				}
			}
			if ok != wantOK || ok && (start != ws || end != we) {
				t.Fatalf("valueAt(%q) = %d, %d, %v; the grammar reads %d, %d, %v", s, start, end, ok, ws, we, wantOK)
			}
		}
		if len(prefix) == 5 {
			return
		}
		for _, c := range alphabet {
			check(append(prefix, c))
		}
	}
	check(nil)
	t.Logf("%d texts", n)
}
