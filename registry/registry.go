// Package registry reads the YAML rule registry (and the default rule pack
// embedded in the binary) into engine definitions, and precomputes the
// embeddings of every template and example with Sync.
package registry

import (
	"github.com/lexsona/lexsona/engine"
)

// Limits on what a registry may hold. A file over MaxFileSize or with more
// than MaxRules rules is refused with ETOOLARGE before anything else is
// checked; the other limits are reported as validation problems.
const (
	MaxFileSize = 16 << 20 // bytes
	MaxRules    = 50_000
	MaxExamples = 64 // per rule
)

// CurrentVersion is the only registry format version this build reads.
const CurrentVersion = 1

// Registry is a parsed, valid rule registry. It is immutable and safe for
// concurrent use.
type Registry struct {
	name    string // the source name
	file    string // the name problems were reported under
	version int
	defs    []engine.Definition // file order
	lines   []int               // line of each rule's entry
	// contrary holds each rule's contrary phrasings (parallel to defs):
	// ways of saying the opposite of the rule, see Contrary.
	contrary [][]string
	sides    []engine.Sides // each rule's sides (parallel to defs), see Sides
	checks   [][]Check      // each rule's enforce (parallel to defs), see Checks
	index    map[string]int // rule id → position in defs
}

// Name is the registry's source name: its top-level name:, else the name
// the caller gave ParseWith, else its file's base name without extension
// ("default" for the default pack). Every definition carries it in
// Rule.Registry. A merged registry (Merge) joins its sources' names with
// "+".
func (r *Registry) Name() string { return r.name }

// File is the name the registry was parsed under, as its problems name it
// (the path for Load, "default" for the default pack).
func (r *Registry) File() string { return r.file }

// Version is the format version the file declared.
func (r *Registry) Version() int { return r.version }

// Len is the number of rules.
func (r *Registry) Len() int { return len(r.defs) }

// Definitions returns the rules in file order as engine definitions: source
// registry, Registry the registry's Name, status active-eligible, Text the template, scope normalised,
// evidence fields zero (the store keeps evidence; a definition never resets
// it). The slice is a copy; the tag and example slices are shared and must
// not be modified.
func (r *Registry) Definitions() []engine.Definition {
	out := make([]engine.Definition, len(r.defs))
	copy(out, r.defs)
	return out
}

// Lookup returns the definition of id and the line it starts on.
func (r *Registry) Lookup(id string) (def engine.Definition, line int, ok bool) {
	i, ok := r.index[id]
	if !ok {
		return engine.Definition{}, 0, false
	}
	return r.defs[i], r.lines[i], true
}

// Contrary returns the contrary phrasings of rule id (nil for an unknown id
// or a rule without any): what a user says to contradict the rule ("npm is
// fine here" against "use pnpm, never npm"). Sync stores them as contrary
// texts; the classifier compares a correction with them to tell a
// contradiction from a reinforcement. The slice must not be modified.
func (r *Registry) Contrary(id string) []string {
	i, ok := r.index[id]
	if !ok {
		return nil
	}
	return r.contrary[i]
}

// Texts returns every text the registry embeds — each rule's template
// followed by its examples and its contrary phrasings, in file order — for
// fitting a lexical embedder's IDF on the registry's vocabulary.
func (r *Registry) Texts() []string {
	n := len(r.defs)
	for i, d := range r.defs {
		n += len(d.Examples) + len(r.contrary[i])
	}
	out := make([]string, 0, n)
	for i, d := range r.defs {
		out = append(out, d.Rule.Text)
		out = append(out, d.Examples...)
		out = append(out, r.contrary[i]...)
	}
	return out
}

// ContraryTexts maps every rule of r, but those in kept (a user's own rule
// with a registry rule's id), to its contrary phrasings (none included).
func (r *Registry) ContraryTexts(kept []string) map[string][]string {
	skip := make(map[string]bool, len(kept))
	for _, id := range kept {
		skip[id] = true
	}
	out := make(map[string][]string, len(r.defs))
	for i, d := range r.defs {
		if !skip[d.Rule.RuleID] {
			out[d.Rule.RuleID] = r.contrary[i]
		}
	}
	return out
}
