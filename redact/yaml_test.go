package redact

import (
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/redact/redacttest"
)

// registryDoc is a rule registry whose template is text.
func registryDoc(text string) string {
	return "version: 1\nrules:\n  - rule_id: security.x\n    category: security_policy\n    severity: must\n    template: " +
		strconv.Quote(text) + "\n    examples: [\"no secrets\"]\n"
}

// template returns the first rule's template of a registry document.
func template(t *testing.T, doc []byte) string {
	t.Helper()
	var reg struct {
		Rules []struct{ Template string } `yaml:"rules"`
	}
	if err := yaml.Unmarshal(doc, &reg); err != nil || len(reg.Rules) != 1 {
		t.Fatalf("redacted registry does not parse (%v):\n%s", err, doc)
	}
	return reg.Rules[0].Template
}

// TestYAMLCorpus puts every shape of the corpus into a registry's template:
// the redacted registry still parses, holds no secret, and its template is
// the shape's text redacted.
func TestYAMLCorpus(t *testing.T) {
	for _, sh := range redacttest.Shapes() {
		out, n := YAML([]byte(registryDoc(sh.Text())))
		if n < 1 || strings.Contains(string(out), sh.Secret) {
			t.Errorf("%s: %d secrets replaced, secret kept:\n%s", sh.Name, n, out)
			continue
		}
		if got := template(t, out); !strings.Contains(got, "[REDACTED:") {
			t.Errorf("%s: template %q has no placeholder", sh.Name, got)
		}
	}
}

func TestYAMLShapes(t *testing.T) {
	cs := redacttest.Shapes()
	anthropic, gh := cs[8].Secret, cs[2].Secret
	for _, tc := range []struct{ name, in, want string }{
		{"placeholder opening a plain scalar is quoted", "template: " + anthropic + " must never be committed\n",
			"template: '[REDACTED:anthropic-api-key] must never be committed'\n"},
		{"value of a password key", "password: Xk9!pQz7Lm\nuser: app\n", "password: '[REDACTED:password]'\nuser: app\n"},
		{"comment", "# token for CI: " + gh + "\nname: ci\n", "# token for CI: [REDACTED:github-pat]\nname: ci\n"},
		{"flow sequence item", "examples: [\"use " + gh + " here\", ok]\n", "examples: [\"use [REDACTED:github-pat] here\", ok]\n"},
		{"block scalar", "template: |\n  export GH=" + gh + "\n  then run\n", "template: |\n  export GH=[REDACTED:github-pat]\n  then run\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := YAML([]byte(tc.in))
			if string(got) != tc.want || n != 1 {
				t.Fatalf("YAML(%q)\n = %q, %d\nwant %q, 1", tc.in, got, n, tc.want)
			}
		})
	}
}

// TestYAMLUnchanged returns a document without a secret byte for byte,
// however it is laid out.
func TestYAMLUnchanged(t *testing.T) {
	in := "# LexSona rules\nversion: 1\nrules:\n    -   rule_id: tool.pnpm   # pnpm\n        template: >\n            use pnpm,\n            not npm\n"
	if got, n := YAML([]byte(in)); string(got) != in || n != 0 {
		t.Fatalf("YAML changed a clean document: %q, %d", got, n)
	}
}

// TestYAMLNotYAML redacts text that does not parse as YAML as text.
func TestYAMLNotYAML(t *testing.T) {
	gh := redacttest.Shapes()[2].Secret
	in := "rules: [unclosed\ntoken " + gh + "\n"
	got, n := YAML([]byte(in))
	if want, _ := Text(in); string(got) != want || n != 1 {
		t.Fatalf("YAML(%q) = %q, %d; want %q", in, got, n, want)
	}
}
