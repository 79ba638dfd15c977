package engine

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseScope feeds arbitrary strings (invalid UTF-8 included) to every
// scope field and tag list. ParseScope must never panic; it either refuses
// the scope with an EINVALID error, or returns one that validates, is
// normalised (trimmed, lower-case, tags sorted and unique, no empty list),
// is unchanged by a second ParseScope, and matches a request in its own
// context. Tag lists are the fuzzed strings split on commas. Run with
//
//	go test -run '^$' -fuzz '^FuzzParseScope$' -fuzztime 20s ./engine/
//
// Seeds: the f.Add calls and testdata/fuzz/FuzzParseScope.
func FuzzParseScope(f *testing.F) {
	for _, s := range [][5]string{
		{"work", "api", "claude", "cli,go", "migration"},
		{" Work ", "API", "", "CLI,go,cli, ,", ""},
		{"", "", "", "", ""},
		{"x'); DROP TABLE persona_rules; --", "' OR '1'='1", "a b", "<script>", "\x00"},
		{"\xff\xfe", "caf\u00e9", "\u212aelvin", "\u0130stanbul,\u00df", "\U0001F680"},
		{strings.Repeat("a", 128), strings.Repeat("b", 129), "-lead", "a..b,a/b,a@b:c+d", "trailing-"},
		{"\t\n", "proj\u200b", "agent\r", strings.Repeat("t,", 70), strings.Repeat("e,", 64)},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, env, project, agent, tags, exclude string) {
		in := Scope{Environment: env, Project: project, AgentFamily: agent, ContextTags: splitTags(tags), ExcludeTags: splitTags(exclude)}
		out, err := ParseScope(in)
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("ParseScope(%q): error %v, want an %s one", in, err, EINVALID)
			}
			if msg := ErrorMessage(err); msg == "" || !utf8.ValidString(msg) {
				t.Fatalf("ParseScope(%q): message %q is empty or not valid UTF-8", in, msg)
			}
			return
		}
		if err := out.Validate(); err != nil {
			t.Fatalf("ParseScope(%q) = %q, which does not validate: %v", in, out, err)
		}
		for _, v := range []string{out.Environment, out.Project, out.AgentFamily} {
			if v != strings.ToLower(strings.TrimSpace(v)) {
				t.Fatalf("ParseScope(%q): field %q is not normalised", in, v)
			}
		}
		for _, l := range [][]string{out.ContextTags, out.ExcludeTags} {
			if (l != nil && len(l) == 0) || !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
				t.Fatalf("ParseScope(%q): tag list %q is not sorted, unique and nil when empty", in, l)
			}
		}
		again, err := ParseScope(out)
		if err != nil {
			t.Fatalf("ParseScope(%q) = %q, and again: %v", in, out, err)
		}
		if d := cmp.Diff(out, again); d != "" {
			t.Fatalf("ParseScope is not idempotent on %q (-once +twice):\n%s", in, d)
		}
		if s := out.Specificity(); s < 0 || s > 4.5 {
			t.Fatalf("Specificity(%q) = %g, want 0 to 4.5", out, s)
		}
		req := Scope{Environment: out.Environment, Project: out.Project, AgentFamily: out.AgentFamily, ContextTags: out.ContextTags}
		excluded := false
		for _, x := range out.ExcludeTags {
			excluded = excluded || slices.Contains(out.ContextTags, x)
		}
		if out.Matches(req) == excluded {
			t.Fatalf("%q.Matches(its own context %q) = %v with an excluded tag among its tags: %v", out, req, !excluded, excluded)
		}
		for _, other := range []Scope{req, {}, {Environment: out.Project, ContextTags: out.ExcludeTags}} {
			if m := out.Mismatches(other); (len(m) == 0) != out.Matches(other) {
				t.Fatalf("%q against %q: Matches %v but mismatches %v", out, other, out.Matches(other), m)
			}
		}
	})
}

// splitTags turns a fuzzed string into a tag list (nil for "").
func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
