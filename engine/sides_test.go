package engine

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSidesEmpty(t *testing.T) {
	for _, tc := range []struct {
		s    Sides
		want bool
	}{
		{Sides{}, true},
		{Sides{Prefer: []string{}, Avoid: nil}, true},
		{Sides{Prefer: []string{"pnpm"}}, false},
		{Sides{Avoid: []string{"npm"}}, false},
	} {
		if got := tc.s.Empty(); got != tc.want {
			t.Errorf("%+v.Empty() = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestValidateSides(t *testing.T) {
	many := make([]string, MaxSideTerms+1)
	for i := range many {
		many[i] = strings.Repeat("x", i+1)
	}
	for _, tc := range []struct {
		name string
		s    Sides
		want string // the message; "" for valid
	}{
		{"empty", Sides{}, ""},
		{"pnpm", Sides{Prefer: []string{"pnpm"}, Avoid: []string{"npm", "yarn", "package-lock.json", "yarn.lock"}}, ""},
		{"three words and a flag", Sides{Avoid: []string{"git push --force", "-f", "sed -i"}}, ""},
		{"non-ASCII", Sides{Avoid: []string{"émoji", "✅"}}, ""},
		{"forty bytes", Sides{Avoid: []string{strings.Repeat("a", MaxSideTermBytes)}}, ""},
		{"sixteen terms", Sides{Prefer: many[:MaxSideTerms]}, ""},
		{"empty term", Sides{Avoid: []string{"npm", ""}}, `avoid term is empty`},
		{"too long", Sides{Prefer: []string{strings.Repeat("a", MaxSideTermBytes+1)}}, `prefer term "` + strings.Repeat("a", 41) + `" is 41 bytes long: at most 40`},
		{"upper case", Sides{Prefer: []string{"PNPM"}}, `prefer term "PNPM" is not lowercase: write "pnpm"`},
		{"control character", Sides{Avoid: []string{"a\x1bb"}}, `avoid term "a\x1bb" contains a control character (U+001B ESC (escape)) at byte 1: remove it`},
		{"tab", Sides{Avoid: []string{"a\tb"}}, `avoid term "a\tb" contains a control character (U+0009 TAB) at byte 1: remove it`},
		{"bidi override", Sides{Avoid: []string{"a\u202eb"}}, `avoid term "a\u202eb" contains a bidirectional formatting character (U+202E RIGHT-TO-LEFT OVERRIDE) at byte 1: remove it`},
		{"invalid UTF-8", Sides{Avoid: []string{"a\xffb"}}, `avoid term "a\xffb" is not valid UTF-8`},
		{"leading space", Sides{Prefer: []string{" pnpm"}}, `prefer term " pnpm" has white space around or between its words other than single spaces`},
		{"double space", Sides{Prefer: []string{"replace  tool"}}, `prefer term "replace  tool" has white space around or between its words other than single spaces`},
		{"four words", Sides{Avoid: []string{"find piped into grep"}}, `avoid term "find piped into grep" has 4 words: at most 3`},
		{"seventeen terms", Sides{Avoid: many}, `avoid has 17 terms: at most 16`},
		{"repeated", Sides{Avoid: []string{"npm", "yarn", "npm"}}, `avoid term "npm" is repeated`},
		{"both sides", Sides{Prefer: []string{"pnpm", "npm"}, Avoid: []string{"npm"}}, `term "npm" is both preferred and avoided: give it on one side only`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateSides(tc.s)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("ValidateSides: %v", err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || ErrorMessage(err) != tc.want {
				t.Errorf("ValidateSides = %v\nwant invalid: %s", err, tc.want)
			}
		})
	}
}

// TestDeriveSides: the sides read from templates of the default pack and
// from rules users write.
func TestDeriveSides(t *testing.T) {
	for _, tc := range []struct {
		template      string
		prefer, avoid []string
	}{
		// The default pack's templates.
		{"Use pnpm to install dependencies and run scripts; never npm or yarn, and never create package-lock.json or yarn.lock",
			[]string{"pnpm"}, []string{"npm", "yarn", "package-lock.json", "yarn.lock"}},
		{"Search the codebase with rg (ripgrep), not grep -r or find piped into grep",
			[]string{"rg", "ripgrep"}, []string{"grep -r", "grep"}},
		{"Use no emoji anywhere: not in replies, commit messages, code comments or log output",
			nil, []string{"emoji"}},
		{"Never use sed, awk or perl one-liners to edit files; use the editor's replace tool instead",
			[]string{"replace tool"}, []string{"sed", "awk", "perl"}},
		{"Manage Python environments and packages with uv (uv add, uv run, uv sync), not pip install or a hand-made virtualenv",
			[]string{"uv", "uv add", "uv sync"}, []string{"pip", "hand-made virtualenv"}},
		{"Never force-push (git push --force or -f) to a shared branch; push new commits, and ask before rewriting any pushed history",
			nil, []string{"force-push", "git push --force", "-f"}},
		{"Never start commands that wait for keyboard input (vim, less, git rebase -i, an unpiped pager); use non-interactive flags such as --no-pager or -y",
			[]string{"non-interactive flags", "--no-pager", "-y"}, []string{"vim", "git rebase -i", "unpiped pager"}},
		{"Build, test and lint through the project's make targets (make test, make lint) instead of invoking the underlying tools by hand",
			[]string{"make targets", "make test", "make lint"}, nil},
		{"In the terminal, answer in plain text: no Markdown headings, tables or bold, which show up as raw symbols",
			nil, []string{"markdown headings", "tables", "bold"}},
		{"Never write secrets (API keys, tokens, passwords, private keys) into code, config files or commits; read them from environment variables or the secret store",
			nil, []string{"secrets", "api keys", "tokens", "passwords", "private keys"}},
		{"Never pipe a downloaded script straight into a shell (curl | sh, wget -O- | bash); download it, show it to me, then run it",
			nil, []string{"downloaded", "curl", "sh", "wget -o", "wget", "bash"}},
		{"Don't use sudo or change system-wide settings and packages without asking me first",
			nil, []string{"sudo", "system-wide settings", "packages"}},
		{"Never disable TLS certificate verification (InsecureSkipVerify, verify=False, curl -k, NODE_TLS_REJECT_UNAUTHORIZED=0); fix the certificate or the trust store instead",
			nil, []string{"tls certificate verification", "insecureskipverify", "verify=false", "curl -k", "curl", "node_tls_reject_unauthorized=0"}},
		{"Build SQL with parameterised queries or placeholders; never concatenate or format user input into a query string",
			[]string{"parameterised queries", "placeholders"}, []string{"concatenate", "user input"}},
		{"Change only what I asked for: no drive-by refactors, renames or reformatting of unrelated code",
			nil, []string{"drive-by refactors", "renames", "reformatting"}},
		{"Query and edit JSON with jq, not grep, sed or hand-written parsing",
			[]string{"jq"}, []string{"grep", "sed", "hand-written parsing"}},
		{"Don't start dev servers or file watchers (npm run dev, manage.py runserver, docker compose up); I run them myself",
			nil, []string{"dev servers", "watchers", "npm", "dev", "manage.py runserver", "docker compose"}},
		{"Use the real service, API or data, not mocks, fake data or hard-coded responses, unless I request them",
			[]string{"real service", "api", "data"}, []string{"mocks", "fake data", "hard-coded responses"}},
		// Templates nothing can be read from.
		{"Keep the README and docs in step with the code: update them in the same change that alters the behaviour", nil, nil},
		{"Commit after each step that builds and passes its tests", nil, nil},
		{"", nil, nil},
		// Rules users write.
		{"Prefer httpx over requests", []string{"httpx"}, []string{"requests"}},
		{"Use tabs, not spaces", []string{"tabs"}, []string{"spaces"}},
		{"Run the tests with pytest -q instead of unittest", []string{"pytest -q", "pytest"}, []string{"unittest"}},
		{"Stop using var in JavaScript, use const or let", []string{"const", "let"}, []string{"var"}},
		{"Don’t use Moment.js; use date-fns", []string{"date-fns"}, []string{"moment.js"}},
		{"Write Python with type hints, never untyped functions", []string{"type hints"}, []string{"untyped functions"}},
		{"Use bun rather than node for scripts", []string{"bun"}, []string{"node"}},
		{"avoid lodash", nil, []string{"lodash"}},
		{"Never touch /etc or ~/.ssh", nil, []string{"/etc", "~/.ssh"}},
		{"Use npm here, not pnpm, and never use npm ci", []string{"npm"}, []string{"pnpm", "npm ci"}},
		{"Use X; don't use X", nil, nil}, // one-letter words are no terms
		{"Use black for formatting, never black --fast", []string{"black"}, []string{"black --fast"}},
	} {
		got := DeriveSides(tc.template)
		want := Sides{Prefer: tc.prefer, Avoid: tc.avoid}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DeriveSides(%q) (-want +got):\n%s", tc.template, diff)
		}
		if err := ValidateSides(got); err != nil {
			t.Errorf("DeriveSides(%q) = %+v: %v", tc.template, got, err)
		}
	}
}

// TestDeriveSidesBothSides: a term both preferred and avoided is dropped
// from both, and each side keeps at most MaxSideTerms terms.
func TestDeriveSidesBothSides(t *testing.T) {
	if got := DeriveSides("Use docker, never docker; use podman"); !cmp.Equal(got, Sides{Prefer: []string{"podman"}}) {
		t.Errorf("got %+v: want podman preferred only", got)
	}
	var b strings.Builder
	b.WriteString("never ")
	for i := range 40 {
		b.WriteString("tool" + strings.Repeat("x", i) + ", ")
	}
	if got := DeriveSides(b.String()); len(got.Avoid) != MaxSideTerms || got.Avoid[0] != "tool" {
		t.Errorf("got %d avoided terms starting %q: want the first %d", len(got.Avoid), got.Avoid[:1], MaxSideTerms)
	}
}

// FuzzDeriveSides: whatever the template, DeriveSides returns sides that
// ValidateSides accepts.
func FuzzDeriveSides(f *testing.F) {
	for _, s := range []string{
		"Use pnpm, never npm", "never (((", "use ) ) ( never -", "Use ÉMOJI, not ✅", "never --, use -",
		"never a\x1bb or c\u202ed", "use " + strings.Repeat("longword", 10), "never e.g. x.y. z's",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := ValidateSides(DeriveSides(s)); err != nil {
			t.Errorf("DeriveSides(%q): %v", s, err)
		}
	})
}
