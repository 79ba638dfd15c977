package registry

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// good is a valid rule, indented as a list item under rules:.
const good = `  - rule_id: tool.ok
    category: tool_preference
    severity: must
    template: "Use the replace tool"
`

// TestParseProblems checks every validation problem and the position it is
// reported at. Each want line is name:LINE:COL: message.
func TestParseProblems(t *testing.T) {
	long := strings.Repeat("x", engine.MaxRuleTextLength+1)
	many := "[" + strings.Repeat(`"e", `, MaxExamples) + `"e"]`
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"empty file", ``, []string{
			`t.yaml: the registry is empty: want version: 1 and a rules list`}},
		{"comments only", "# nothing\n", []string{
			`t.yaml: the registry is empty: want version: 1 and a rules list`}},
		{"syntax error", "version: 1\nrules:\n  - rule_id: \"x\n", []string{
			`t.yaml:3: YAML syntax: found unexpected end of stream`}},
		{"bad indentation", "version: 1\nrules:\n  - rule_id: a\n   category: b\n", []string{
			// yaml.v3 names the line where the enclosing block began.
			`t.yaml:2: YAML syntax: did not find expected '-' indicator`}},
		{"two documents", "version: 1\nrules: []\n---\nversion: 1\n", []string{
			`t.yaml:3:1: a second YAML document: a registry is a single document`}},
		{"root is a list", "- version: 1\n", []string{
			`t.yaml:1:1: the registry must be a mapping with version and rules, got a list`}},
		{"root is a string", "hello\n", []string{
			`t.yaml:1:1: the registry must be a mapping with version and rules, got a string`}},
		{"unknown top-level key", "version: 1\nrulez: []\nrules: []\n", []string{
			`t.yaml:2:1: unknown key "rulez" in the registry (did you mean "rules"?): want version, name, rules`}},
		{"missing version", "rules: []\n", []string{
			`t.yaml:1:1: missing version: want version: 1`}},
		{"unknown version", "version: 2\nrules:\n  - rule_id: Bad\n", []string{
			`t.yaml:1:10: unknown version 2: this build reads version 1`}},
		{"version is a string", "version: \"1\"\nrules: []\n", []string{
			`t.yaml:1:10: version must be an integer, got a string`}},
		{"repeated top-level key", "version: 1\nversion: 1\nrules: []\n", []string{
			`t.yaml:2:1: key "version" repeated in the registry: first given at line 1`}},
		{"missing rules", "version: 1\n", []string{
			`t.yaml:1:1: missing rules: want a list of rules`}},
		{"rules is empty", "version: 1\nrules:\n", []string{
			`t.yaml:2:7: rules must be a list, got nothing`}},
		{"rules is a mapping", "version: 1\nrules:\n  a: b\n", []string{
			`t.yaml:3:3: rules must be a list, got a mapping`}},
		{"rule is a string", "version: 1\nrules:\n  - tool.x\n", []string{
			`t.yaml:3:5: rule 1 must be a mapping with rule_id, category, severity and template, got a string`}},
		{"rule misses every field", "version: 1\nrules:\n  - topic: x\n", []string{
			`t.yaml:3:5: rule 1: missing rule_id`,
			`t.yaml:3:5: rule 1: missing category`,
			`t.yaml:3:5: rule 1: missing severity`,
			`t.yaml:3:5: rule 1: missing template`}},
		{"unknown rule key", "version: 1\nrules:\n" + good + "    templte: x\n", []string{
			`t.yaml:7:5: unknown key "templte" in rule 1 (did you mean "template"?): want rule_id, category, severity, template, examples, contrary, prefer, avoid, scope, topic, enforce`}},
		{"repeated rule key", "version: 1\nrules:\n" + good + "    severity: should\n", []string{
			`t.yaml:7:5: key "severity" repeated in rule 1: first given at line 5`}},
		{"non-string key", "version: 1\nrules:\n" + good + "    1: x\n", []string{
			`t.yaml:7:5: keys of rule 1 must be strings, got a number`}},
		{"malformed rule id", "version: 1\nrules:\n  - rule_id: Tool.No Sed\n    category: tool_preference\n    severity: must\n    template: t\n", []string{
			`t.yaml:3:14: malformed rule id "Tool.No Sed": want lowercase dotted segments of a-z, 0-9, '-' and '_', like tool.no-sed-for-file-editing`}},
		{"duplicate rule id", "version: 1\nrules:\n" + good + good, []string{
			`t.yaml:7:14: duplicate rule_id "tool.ok": already defined at line 3`}},
		{"rule id is a list", "version: 1\nrules:\n  - rule_id: [a]\n    category: c\n    severity: must\n    template: t\n", []string{
			`t.yaml:3:14: rule_id must be a string, got a list`}},
		{"bad category", "version: 1\nrules:\n  - rule_id: a\n    category: Tool Preference\n    severity: must\n    template: t\n", []string{
			`t.yaml:4:15: malformed category "Tool Preference": want a lowercase word such as tool_preference, communication_style, security_policy or code_style`}},
		{"unknown severity", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: always\n    template: t\n", []string{
			`t.yaml:5:15: unknown severity "always": want must, should or style`}},
		{"severity is a boolean", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: true\n    template: t\n", []string{
			`t.yaml:5:15: severity must be a string, got a boolean (quote it to make it a string)`}},
		{"empty template", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: must\n    template: \"  \"\n", []string{
			`t.yaml:6:15: template is empty`}},
		{"null template", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: must\n    template:\n", []string{
			`t.yaml:6:14: template is empty`}},
		{"template too long", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: must\n    template: " + long + "\n", []string{
			`t.yaml:6:15: template is 4097 bytes long: at most 4096`}},
		{"template without words", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: must\n    template: \"!!! ...\"\n    examples: [\"--\", ok]\n", []string{
			`t.yaml:6:15: template has no letter or digit: there is nothing to match a correction against`,
			`t.yaml:7:16: example has no letter or digit: there is nothing to match a correction against`}},
		{"invalid UTF-8", "version: 1\nrules:\n  - rule_id: a\n    template: \"d\u00e9j\xe0\"\n", []string{
			`t.yaml:4:19: invalid UTF-8 (byte 0xe0): a registry is UTF-8 text`}},
		{"raw control character", "version: 1\nrules: []\n# \x01\n", []string{
			`t.yaml:3:3: the character U+0001 is not allowed in YAML`}},
		{"escaped control characters", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: must\n    template: \"a\\x00b\"\n    examples: [\"ok\\u001b[0m\", \"tab\\tand\\nnewline\"]\n", []string{
			`t.yaml:6:15: template contains a control character (U+0000 NUL) at byte 1: remove it`,
			`t.yaml:7:16: example contains a control character (U+001B ESC (escape)) at byte 2: remove it`}},
		{"template is a mapping", "version: 1\nrules:\n  - rule_id: a\n    category: c\n    severity: must\n    template: {a: b}\n", []string{
			`t.yaml:6:15: template must be a string, got a mapping`}},
		{"examples not a list", "version: 1\nrules:\n" + good + "    examples: stop it\n", []string{
			`t.yaml:7:15: examples must be a list of strings, got a string`}},
		{"bad examples", "version: 1\nrules:\n" + good + "    examples:\n      - stop\n      - \"\"\n      - [x]\n      - \"  STOP \"\n      - use the REPLACE tool\n", []string{
			`t.yaml:9:9: example is empty`,
			`t.yaml:10:9: example must be a string, got a list`,
			`t.yaml:11:9: example repeated: already given at line 8`,
			`t.yaml:12:9: example repeats the template`}},
		{"too many examples", "version: 1\nrules:\n" + good + "    examples: " + many + "\n", []string{
			`t.yaml:7:15: 65 examples: at most 64`}},
		{"contrary not a list", "version: 1\nrules:\n" + good + "    contrary: sed is fine\n", []string{
			`t.yaml:7:15: contrary must be a list of strings, got a string`}},
		{"bad contrary phrasings", "version: 1\nrules:\n" + good + "    examples: [stop]\n    contrary:\n      - fine\n      - \"\"\n      - \" FINE\"\n      - use the REPLACE tool\n      - STOP\n", []string{
			`t.yaml:10:9: contrary phrasing is empty`,
			`t.yaml:11:9: contrary phrasing repeated: already given at line 9`,
			`t.yaml:12:9: contrary phrasing repeats the template`,
			`t.yaml:13:9: contrary phrasing is also an example: a phrasing cannot both affirm and contradict its rule`}},
		{"too many contrary phrasings", "version: 1\nrules:\n" + good + "    contrary: " + many + "\n", []string{
			`t.yaml:7:15: 65 contrary phrasings: at most 64`}},
		{"sides not lists", "version: 1\nrules:\n" + good + "    prefer: pnpm\n    avoid: {npm: 1}\n", []string{
			`t.yaml:7:13: prefer must be a list of terms, got a string`,
			`t.yaml:8:12: avoid must be a list of terms, got a mapping`}},
		{"bad side terms", "version: 1\nrules:\n" + good + "    prefer: [pnpm, PNPM, \"\", pnpm, \"a b c d\", [x]]\n    avoid:\n      - npm\n      - pnpm\n      - \"tab\\there\"\n      - " + strings.Repeat("x", engine.MaxSideTermBytes+1) + "\n", []string{
			`t.yaml:7:20: prefer term "PNPM" is not lowercase: write "pnpm"`,
			`t.yaml:7:26: prefer term is empty`,
			`t.yaml:7:30: prefer term "pnpm" repeated: already given at line 7`,
			`t.yaml:7:36: prefer term "a b c d" has 4 words: at most 3`,
			`t.yaml:7:47: prefer term must be a string, got a list`,
			`t.yaml:10:9: term "pnpm" is both avoided and preferred (line 7): give it on one side only`,
			`t.yaml:11:9: avoid term "tab\there" contains a control character (U+0009 TAB) at byte 3: remove it`,
			`t.yaml:12:9: avoid term "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" is 41 bytes long: at most 40`}},
		{"too many side terms", "version: 1\nrules:\n" + good + "    avoid: [" + strings.Repeat("x, ", engine.MaxSideTerms) + "y]\n", []string{
			`t.yaml:7:12: avoid has 17 terms: at most 16`}},
		{"scope not a mapping", "version: 1\nrules:\n" + good + "    scope: work\n", []string{
			`t.yaml:7:12: scope must be a mapping of environment, project, agent_family, context_tags, exclude_tags, got a string`}},
		{"bad scope values", "version: 1\nrules:\n" + good + "    scope:\n      environment: my work\n      projekt: api\n      context_tags: [cli, \"a b\", \"\"]\n      exclude_tags: cli\n", []string{
			`t.yaml:8:20: scope environment "my work" has characters that are not allowed: use a-z, 0-9 and . _ : / @ + -, starting with a letter or digit`,
			`t.yaml:9:7: unknown key "projekt" in scope (did you mean "project"?): want environment, project, agent_family, context_tags, exclude_tags`,
			`t.yaml:10:27: context tag "a b" has characters that are not allowed: use a-z, 0-9 and . _ : / @ + -, starting with a letter or digit`,
			`t.yaml:10:34: empty context tag`,
			`t.yaml:11:21: exclude tags must be a list of strings, got a string`}},
		{"tag both included and excluded", "version: 1\nrules:\n" + good + "    scope: {context_tags: [cli, ci], exclude_tags: [CI]}\n", []string{
			`t.yaml:7:53: tag "ci" is both a context tag (line 7) and an exclude tag: the rule could never apply`}},
		{"bad topic", "version: 1\nrules:\n" + good + "    topic: File Editing\n", []string{
			`t.yaml:7:12: topic "file editing" has characters that are not allowed: use a-z, 0-9 and . _ : / @ + -, starting with a letter or digit`}},
		{"anchors and aliases", "version: 1\nrules:\n  - &r\n    rule_id: a\n    category: c\n    severity: must\n    template: t\n  - *r\n", []string{
			`t.yaml:3:5: anchor &r: anchors and aliases are not allowed in a registry`,
			`t.yaml:8:5: alias *r: anchors and aliases are not allowed in a registry`}},
		{"merge key", "version: 1\nx: &x {category: c}\nrules:\n  - <<: *x\n", []string{
			`t.yaml:2:4: anchor &x: anchors and aliases are not allowed in a registry`,
			`t.yaml:4:9: alias *x: anchors and aliases are not allowed in a registry`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := Parse([]byte(tc.yaml), "t.yaml")
			if err == nil {
				t.Fatalf("Parse succeeded with %d rules; want problems", reg.Len())
			}
			if reg != nil {
				t.Errorf("Parse returned a registry along with an error")
			}
			if code := engine.ErrorCode(err); code != engine.EINVALID {
				t.Errorf("code %q: want %q (%v)", code, engine.EINVALID, err)
			}
			var got []string
			for _, p := range Problems(err) {
				got = append(got, p.Format("t.yaml"))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if msg := engine.ErrorMessage(err); msg != strings.Join(tc.want, "\n") {
				t.Errorf("message %q does not list the problems", msg)
			}
		})
	}
}

// TestParseGolden parses a file with a problem on almost every rule and
// compares the whole message, as a front end would show it, with
// testdata/broken.golden (go test -run Golden -update rewrites it).
func TestParseGolden(t *testing.T) {
	path := filepath.Join("testdata", "broken.yaml")
	_, err := Load(path)
	var v *ValidationError
	if !errors.As(err, &v) {
		t.Fatalf("Load(%s) = %v: want a *ValidationError", path, err)
	}
	if v.Name != path || engine.ErrorCode(err) != engine.EINVALID {
		t.Errorf("name %q code %q", v.Name, engine.ErrorCode(err))
	}
	got := engine.ErrorMessage(err) + "\n"
	golden := filepath.Join("testdata", "broken.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

// TestProblemCap checks that a file with thousands of problems keeps at most
// MaxProblems of them and a message of bounded size.
func TestProblemCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nrules:\n")
	for range 3000 {
		b.WriteString("  - {rule_id: Bad, category: c, severity: never, template: t}\n")
	}
	_, err := Parse([]byte(b.String()), "many.yaml")
	var v *ValidationError
	if !errors.As(err, &v) {
		t.Fatalf("got %v: want a *ValidationError", err)
	}
	if len(v.Problems) != MaxProblems || v.Omitted != 6000-MaxProblems {
		t.Errorf("%d problems, %d omitted: want %d and %d", len(v.Problems), v.Omitted, MaxProblems, 6000-MaxProblems)
	}
	msg := engine.ErrorMessage(err)
	if n := strings.Count(msg, "\n"); n != maxListed {
		t.Errorf("message has %d lines: want %d listed and a summary", n+1, maxListed)
	}
	if !strings.HasSuffix(msg, "many.yaml: … and 5900 more problems") {
		t.Errorf("message ends %q", msg[len(msg)-60:])
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path, code, msg string
	}{
		{"missing", filepath.Join(dir, "nope.yaml"), engine.EINVALID, "registry file " + filepath.Join(dir, "nope.yaml") + " does not exist"},
		{"directory", dir, engine.EINVALID, "cannot read registry file " + dir + ": is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.path)
			if engine.ErrorCode(err) != tc.code || engine.ErrorMessage(err) != tc.msg {
				t.Errorf("Load: %v: want %s: %s", err, tc.code, tc.msg)
			}
		})
	}
}
