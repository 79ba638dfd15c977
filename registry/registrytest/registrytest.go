// Package registrytest holds what the tests of the registry parser and of
// the registry sync share: a large generated registry.
package registrytest

import (
	"fmt"
	"strings"
)

// Generate returns a valid registry of n rules: each with a template, three
// examples, a scope of a project and two context tags, and a topic, ten
// lines a rule.
func Generate(n int) []byte {
	var b strings.Builder
	b.Grow(n * 420)
	b.WriteString("version: 1\nrules:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - rule_id: gen.rule-%05d\n    category: code_style\n    severity: should\n", i)
		fmt.Fprintf(&b, "    template: \"Rule %d: prefer the project's helper number %d over hand-written loops in module %d\"\n", i, i, i%97)
		fmt.Fprintf(&b, "    examples:\n      - \"use helper %d\"\n      - \"why did you hand-roll loop %d again?\"\n      - \"Please call helper %d in module %d\"\n", i, i, i, i%97)
		fmt.Fprintf(&b, "    scope: {project: p%d, context_tags: [go, t%d]}\n    topic: topic-%d\n", i%13, i%7, i%101)
	}
	return []byte(b.String())
}
