// Package redact replaces secrets in free text (API keys, tokens, private-key
// blocks, passwords assigned in code) with typed placeholders such as
// [REDACTED:github-pat], so a correction that quotes code never stores, shows,
// exports or injects the secret it quoted.
//
// Detection is the gitleaks default rule set (see gitleaks.go) plus the few
// shapes it misses (extra.go); this file turns findings into replacements.
package redact

import (
	"sort"
	"strings"
)

// Placeholder is the text that replaces a secret of the given type (a
// gitleaks rule id, e.g. "aws-access-token").
func Placeholder(kind string) string { return "[REDACTED:" + kind + "]" }

// Finding is one secret found in a text: its type and the exact secret text.
type Finding struct {
	Type   string
	Secret string
}

// Text returns s with every secret replaced by its placeholder, and how many
// secrets were replaced (each occurrence counts once). A text without a
// secret is returned unchanged.
func Text(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	return apply(s, append(find(s), findExtra(s)...))
}

// Strings redacts each non-nil string in place (see Text) and returns the
// total number of secrets replaced.
func Strings(fields ...*string) int {
	n := 0
	for _, f := range fields {
		if f == nil {
			continue
		}
		var k int
		*f, k = Text(*f)
		n += k
	}
	return n
}

// apply replaces the secrets of fs in s, longest first so that a secret
// found by two rules (a specific one and the generic assignment rule) or
// one containing another is replaced once, by its widest match.
func apply(s string, fs []Finding) (string, int) {
	sort.SliceStable(fs, func(i, j int) bool { return len(fs[i].Secret) > len(fs[j].Secret) })
	n := 0
	for _, f := range fs {
		if f.Secret == "" {
			continue
		}
		k := strings.Count(s, f.Secret)
		if k == 0 {
			continue
		}
		s = strings.ReplaceAll(s, f.Secret, Placeholder(f.Type))
		n += k
	}
	return s, n
}
