package redact

import "regexp"

// extraRule is a secret shape the gitleaks default rules miss, checked
// beside them. The secret is the regexp's first group, or the whole match
// when it has none.
type extraRule struct {
	id string
	re *regexp.Regexp
}

// extraRules cover what the gitleaks rule set leaves out:
//   - Azure storage account keys (AccountKey=… in a connection string), which
//     have no gitleaks rule, and whose base64 may begin with "/" or hold "+",
//     which the generic assignment rule does not accept;
//   - OpenAI keys followed by a character outside gitleaks' short list of
//     terminators (a closing parenthesis or bracket, a comma), and project,
//     service-account and admin keys without the T3BlbkFJ marker.
var extraRules = []extraRule{
	{"azure-storage-account-key", regexp.MustCompile(`(?i)\bAccountKey\s*=\s*([A-Za-z0-9+/]{86}==)`)},
	{"openai-api-key", regexp.MustCompile(`\b(sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}))`)},
}

// findExtra returns the secrets extraRules find in s.
func findExtra(s string) []Finding {
	var out []Finding
	for _, r := range extraRules {
		for _, m := range r.re.FindAllStringSubmatch(s, -1) {
			secret := m[0]
			if len(m) > 1 && m[1] != "" {
				secret = m[1]
			}
			out = append(out, Finding{Type: r.id, Secret: secret})
		}
	}
	return out
}
