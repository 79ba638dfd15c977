// Package redact replaces secrets in free text (API keys, tokens, private-key
// blocks, passwords assigned in code, written in connection URLs, given to a
// command's flag or said in prose, Authorization headers, cookies, webhook
// URLs) with typed placeholders such as [REDACTED:github-pat] or
// postgres://app:[REDACTED:password]@db, so a correction that quotes code
// never stores, shows, exports or injects the secret it quoted. A secret is
// found whatever character precedes or follows it (a pipe, a parenthesis,
// a comma, a quote, a sed delimiter, the end of the text).
//
// Detection is the gitleaks default rule set (gitleaks.go, the version
// go.mod requires, with every rule's end of secret widened) plus the shapes
// it misses: extra.go (URL passwords, Authorization headers, LexSona API
// keys, passwords, keys and tokens in assignments and in English or German
// prose), cli.go (password flags of docker login, sshpass, mysql, mongosh,
// redis-cli, curl), web.go (Discord and Slack webhooks, Docker tokens,
// cookies), with the value reader of valueat.go and the look-alike checks
// of values.go. This file turns findings into replacements; yaml.go does
// it for a YAML document, keeping it YAML. The corpus the tests run, here
// and end to end, is in redacttest.
package redact

import (
	"sort"
	"strings"
)

// Placeholder is the text that replaces a secret of the given type (a
// gitleaks rule id, e.g. "aws-access-token", or one of extra.go's, e.g.
// "password", "bearer-token", "lexsona-api-key").
func Placeholder(kind string) string { return "[REDACTED:" + kind + "]" }

// Finding is one secret found in a text: its type and the exact secret text.
type Finding struct {
	Type   string
	Secret string
}

// span is one secret's place in a text, s[start:end], and its type.
type span struct {
	start, end int
	kind       string
}

// everywhere is the length from which a secret a rule of extra.go found at
// one place is also replaced wherever else the same text occurs; a shorter
// one (a URL's "pw") only where it was found, so the same letters elsewhere
// stay.
const everywhere = 8

// genericKind is gitleaks' rule for any high-entropy value assigned to a
// name like key, token or password: a span of a more specific rule of the
// same length is typed by that rule.
const genericKind = "generic-api-key"

// Text returns s with every secret replaced by its placeholder, and how many
// secrets were replaced (each occurrence counts once). A text without a
// secret is returned unchanged; a redacted text is returned unchanged
// (placeholders are not secrets).
func Text(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	return apply(s, findSpans(s))
}

// findSpans returns where the secrets of s are: each gitleaks finding
// wherever its secret occurs, each finding of extra.go where it was found
// and, from everywhere bytes on, wherever else it occurs.
func findSpans(s string) []span {
	var spans []span
	seen := map[string]bool{} // each secret's occurrences are looked for once
	for _, f := range find(s) {
		if !seen[f.Secret] {
			seen[f.Secret] = true
			spans = appendOccurrences(spans, s, f.Secret, f.Type)
		}
	}
	for _, e := range findExtra(s) {
		spans = append(spans, e)
		if secret := s[e.start:e.end]; len(secret) >= everywhere && !seen[secret] {
			seen[secret] = true
			spans = appendOccurrences(spans, s, secret, e.kind)
		}
	}
	return spans
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

// appendOccurrences appends a span of the given kind for each occurrence of
// secret in s.
func appendOccurrences(spans []span, s, secret, kind string) []span {
	if secret == "" {
		return spans
	}
	for off := 0; ; {
		i := strings.Index(s[off:], secret)
		if i < 0 {
			return spans
		}
		spans = append(spans, span{off + i, off + i + len(secret), kind})
		off += i + len(secret)
	}
}

// apply replaces the spans of s by placeholders. Overlapping spans (a secret
// found by two rules, a specific one and a generic one, or one containing
// another) are replaced once, as their union, by the placeholder of the
// longest of them, so no part of either is left. Among spans of one length
// a specific rule's type wins over gitleaks' generic-api-key, and otherwise
// the first found (gitleaks' rule before extra.go's).
func apply(s string, spans []span) (string, int) {
	if len(spans) == 0 {
		return s, 0
	}
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end-spans[i].start > spans[j].end-spans[j].start
	})
	var b strings.Builder
	n, last := 0, 0
	for i := 0; i < len(spans); {
		cur, longest := spans[i], spans[i].end-spans[i].start
		for i++; i < len(spans) && spans[i].start < cur.end; i++ {
			l := spans[i].end - spans[i].start
			if l > longest || l == longest && cur.kind == genericKind && spans[i].kind != genericKind {
				cur.kind, longest = spans[i].kind, l
			}
			cur.end = max(cur.end, spans[i].end)
		}
		b.WriteString(s[last:cur.start])
		b.WriteString(Placeholder(cur.kind))
		last = cur.end
		n++
	}
	b.WriteString(s[last:])
	return b.String(), n
}
