package conformance

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/registry"
)

// semanticTriples are corrections written for this test, each with the
// default pack rule it is about and a rule a weaker model could confuse it
// with (same tool, same area, or a near neighbour in wording). None repeats a
// registry template or example or an eval dataset text (checked below).
var semanticTriples = []struct{ correction, right, wrong string }{
	{"quit rewriting config.yaml through awk, open it with the edit tool", "tool.no-sed-for-file-editing", "tool.no-interactive-commands"},
	{"there's a yarn.lock in the diff now, we only ever install with pnpm", "tool.pnpm-not-npm", "tool.uv-not-pip"},
	{"npm ci is the wrong tool here, this workspace runs on pnpm", "tool.pnpm-not-npm", "tool.use-make-targets"},
	{"don't create a virtualenv with python -m venv, uv handles environments", "tool.uv-not-pip", "tool.pnpm-not-npm"},
	{"you called pip to add requests; add the dependency through uv instead", "tool.uv-not-pip", "security.no-sudo"},
	{"grep -R over the whole monorepo is too slow, rg is installed", "tool.use-ripgrep", "tool.no-sed-for-file-editing"},
	{"find piped to xargs grep again? ripgrep does that in one command", "tool.use-ripgrep", "security.no-curl-pipe-sh"},
	{"you overwrote the remote branch with --force and lost Maria's work", "tool.no-force-push", "tool.no-commit-without-asking"},
	{"if the remote rejects your push, never override it with -f", "tool.no-force-push", "tool.commit-each-step"},
	{"I didn't ask for a commit; leave the changes staged so I can look first", "tool.no-commit-without-asking", "code.conventional-commits"},
	{"why did you squash my work into a commit? only commit when I tell you to", "tool.no-commit-without-asking", "tool.no-force-push"},
	{"on my side project, make a commit each time the tests go green", "tool.commit-each-step", "tool.no-commit-without-asking"},
	{"you bundled five changes into one huge commit; commit after every working step", "tool.commit-each-step", "code.conventional-commits"},
	{"the session hung because git opened an editor for the rebase; use non-interactive flags", "tool.no-interactive-commands", "tool.no-force-push"},
	{"you launched vim and now the terminal is stuck waiting for keystrokes", "tool.no-interactive-commands", "style.plain-text-in-terminal"},
	{"the lint step belongs to the Makefile target, not a hand-typed golangci-lint", "tool.use-make-targets", "tool.no-interactive-commands"},
	{"skip the intro paragraph and the summary at the end, I only need the answer", "style.concise-responses", "style.no-flattery"},
	{"I'm new to Rust, walk me through why you chose a borrow here instead of a clone", "style.explain-when-learning", "style.concise-responses"},
	{"since I'm studying this codebase, tell me which other designs you weighed and why you dropped them", "style.explain-when-learning", "code.no-unrequested-refactors"},
	{"please no smiley faces or rocket icons in the commit log", "style.no-emoji", "code.conventional-commits"},
	{"the little pictograms in the logger output break our log parser", "style.no-emoji", "style.plain-text-in-terminal"},
	{"you don't need to tell me it's a great question every time", "style.no-flattery", "style.concise-responses"},
	{"stop saying sorry three times per reply, just answer", "style.no-flattery", "style.report-failures-honestly"},
	{"you said the migration ran fine but you never executed it", "style.report-failures-honestly", "code.tests-with-changes"},
	{"the command printed an error and you told me everything succeeded", "style.report-failures-honestly", "code.no-placeholder-stubs"},
	{"I only need the three lines you changed, not the entire 400-line file", "style.diffs-not-whole-files", "style.concise-responses"},
	{"post the patch as a unified diff instead of pasting the full module", "style.diffs-not-whole-files", "code.no-unrequested-refactors"},
	{"my terminal shows ### and ** everywhere, answer without markdown", "style.plain-text-in-terminal", "style.no-emoji"},
	{"that table came out as a mess of pipes in the shell; just write plain sentences", "style.plain-text-in-terminal", "style.concise-responses"},
	{"you hardcoded the Stripe key in settings.py; load it from the environment", "security.no-secrets-in-code", "security.no-prod-access"},
	{"the database password is now sitting in docker-compose.yml in git", "security.no-secrets-in-code", "security.no-prod-access"},
	{"don't run that install.sh straight from the internet through bash; let me read it first", "security.no-curl-pipe-sh", "security.no-sudo"},
	{"wget output piped into sh is not how we install tools here", "security.no-curl-pipe-sh", "tool.pnpm-not-npm"},
	{"you ran apt-get as root without checking with me", "security.no-sudo", "security.no-curl-pipe-sh"},
	{"don't change the global git config or system packages on my machine without asking", "security.no-sudo", "tool.no-commit-without-asking"},
	{"setting verify=False to get past the certificate error is not acceptable", "security.no-disable-tls-verification", "security.no-secrets-in-code"},
	{"instead of curl -k, add our internal CA to the trust store", "security.no-disable-tls-verification", "security.no-curl-pipe-sh"},
	{"you built the WHERE clause with an f-string from the request params; use placeholders", "security.parameterized-sql", "security.no-prod-access"},
	{"string concatenation in that query is an injection hole", "security.parameterized-sql", "security.no-disable-tls-verification"},
	{"never point your scripts at the live customer database, use the staging copy", "security.no-prod-access", "security.parameterized-sql"},
	{"you ran kubectl delete against the prod cluster! ask me before anything touches production", "security.no-prod-access", "security.no-sudo"},
	{"in Go, don't throw away the error from os.Remove with an underscore", "code.go-wrap-errors", "code.no-any-in-typescript"},
	{"return the error with context via %w instead of calling panic", "code.go-wrap-errors", "style.report-failures-honestly"},
	{"that handler param typed as any defeats the compiler; give it a real interface", "code.no-any-in-typescript", "code.go-wrap-errors"},
	{"use unknown and narrow it rather than any in this .ts file", "code.no-any-in-typescript", "code.no-placeholder-stubs"},
	{"you fixed the parser but added no test that would have caught the bug", "code.tests-with-changes", "style.report-failures-honestly"},
	{"every behaviour change needs a test that fails first, where is it?", "code.tests-with-changes", "code.no-placeholder-stubs"},
	{"I asked for a one-line fix and you renamed half the package", "code.no-unrequested-refactors", "style.diffs-not-whole-files"},
	{"leave the formatting of untouched files alone, only fix the bug", "code.no-unrequested-refactors", "code.no-commented-out-code"},
	{"a block of // lines holding dead code is noise; git remembers it", "code.no-commented-out-code", "tool.no-commit-without-asking"},
	{"the function body is just a TODO comment; finish it or say what's missing", "code.no-placeholder-stubs", "code.no-commented-out-code"},
	{"returning a hard-coded fake value with 'implement later' is not done", "code.no-placeholder-stubs", "style.report-failures-honestly"},
	{"commit subjects need the fix(scope): prefix and the imperative mood", "code.conventional-commits", "tool.commit-each-step"},
	{"'updated stuff' is not a commit message; use feat: and fix: subjects", "code.conventional-commits", "tool.no-commit-without-asking"},
}

// hardTriples were written with semanticTriples, before the model was run,
// and are the ones where the real model scores the wrong rule's template
// higher: a shared word ("test", "regex", "build", "implementation") outweighs
// the sense. For them the test asserts what the classifier relies on: scored
// against each rule's template and examples (the best of them), the right
// rule wins.
var hardTriples = []struct{ correction, right, wrong string }{
	{"you piped a regex substitution over main.go and broke the braces", "tool.no-sed-for-file-editing", "tool.use-ripgrep"},
	{"don't call go test directly, run make test like CI does", "tool.use-make-targets", "code.tests-with-changes"},
	{"too long, just tell me whether the build passed", "style.concise-responses", "style.report-failures-honestly"},
	{"don't leave the old implementation commented out below the new one, delete it", "code.no-commented-out-code", "code.no-placeholder-stubs"},
}

// TestSemanticSanity embeds each correction of semanticTriples and every
// default-pack template with the ort backend on the imported model and
// checks that the correction's cosine with its right rule's template is
// higher than with the wrong rule's, every time. It also logs how many
// corrections rank their right rule first among all templates. For
// hardTriples it checks the right rule wins on the best of each rule's
// template and examples.
func TestSemanticSanity(t *testing.T) {
	dir := testenv.RealModelDir(t)
	reg := registry.Default()
	if len(semanticTriples) < 40 {
		t.Fatalf("%d triples: the table needs at least 40", len(semanticTriples))
	}
	known := knownTexts(t, reg)
	defs := reg.Definitions()
	index := map[string]int{}
	var texts []string // every template, then every example
	for i, d := range defs {
		index[d.Rule.RuleID] = i
		texts = append(texts, d.Rule.Text)
	}
	owner := map[int]int{} // position in texts -> rule
	for i, d := range defs {
		for _, ex := range d.Examples {
			owner[len(texts)] = i
			texts = append(texts, ex)
		}
	}
	all := append(semanticTriples[:len(semanticTriples):len(semanticTriples)], hardTriples...)
	for _, tc := range all {
		for _, id := range []string{tc.right, tc.wrong} {
			if _, ok := index[id]; !ok {
				t.Fatalf("%q: rule %s is not in the default pack", tc.correction, id)
			}
		}
		if tc.right == tc.wrong {
			t.Fatalf("%q: the right and the wrong rule are both %s", tc.correction, tc.right)
		}
		if src, ok := known[normText(tc.correction)]; ok {
			t.Fatalf("%q repeats %s: write corrections of your own", tc.correction, src)
		}
		texts = append(texts, tc.correction)
	}
	vecs := embedAll(t, open(t, "ort", dir, 0), texts)
	cv := vecs[len(vecs)-len(all):]
	template := func(c []float32, rule int) float64 { return dot(c, vecs[rule]) }
	withExamples := func(c []float32, rule int) float64 {
		best := template(c, rule)
		for k, r := range owner {
			if r == rule {
				best = max(best, dot(c, vecs[k]))
			}
		}
		return best
	}
	minMargin, top1 := math.Inf(1), 0
	for i, tc := range semanticTriples {
		right, wrong := template(cv[i], index[tc.right]), template(cv[i], index[tc.wrong])
		minMargin = min(minMargin, right-wrong)
		best := 0
		for k := range defs {
			if template(cv[i], k) > template(cv[i], best) {
				best = k
			}
		}
		if best == index[tc.right] {
			top1++
		}
		if right <= wrong {
			t.Errorf("%q: %s scores %.3f, not above %s at %.3f", tc.correction, tc.right, right, tc.wrong, wrong)
			continue
		}
		t.Logf("%+.3f  %s %.3f > %s %.3f  %q", right-wrong, tc.right, right, tc.wrong, wrong, tc.correction)
	}
	t.Logf("%d triples: smallest margin %.3f; the right rule's template ranks first of %d for %d of %d corrections",
		len(semanticTriples), minMargin, len(defs), top1, len(semanticTriples))
	for j, tc := range hardTriples {
		c := cv[len(semanticTriples)+j]
		right, wrong := withExamples(c, index[tc.right]), withExamples(c, index[tc.wrong])
		t.Logf("hard case %q: templates %s %.3f vs %s %.3f; best of template and examples %.3f vs %.3f",
			tc.correction, tc.right, template(c, index[tc.right]), tc.wrong, template(c, index[tc.wrong]), right, wrong)
		if right <= wrong {
			t.Errorf("%q: with examples, %s scores %.3f, not above %s at %.3f", tc.correction, tc.right, right, tc.wrong, wrong)
		}
	}
}

// knownTexts maps the normalised registry templates and examples and the
// eval dataset's texts to where they come from.
func knownTexts(t *testing.T, reg *registry.Registry) map[string]string {
	t.Helper()
	known := map[string]string{}
	for _, d := range reg.Definitions() {
		known[normText(d.Rule.Text)] = d.Rule.RuleID + "'s template"
		for _, ex := range d.Examples {
			known[normText(ex)] = "an example of " + d.Rule.RuleID
		}
	}
	path := filepath.Join(testenv.RepoRoot(t), "eval", "testdata", "corrections.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var item struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		known[normText(item.Text)] = "eval item " + item.ID
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return known
}

func normText(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func dot(a, b []float32) float64 {
	var s float64
	for k := range a {
		s += float64(a[k]) * float64(b[k])
	}
	return s
}
