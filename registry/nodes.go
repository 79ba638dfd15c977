package registry

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// field is one key/value pair of a mapping.
type field struct{ key, val *yaml.Node }

// fieldSet holds the pairs of a mapping by key, for a short list of allowed keys.
type fieldSet struct {
	allowed []string
	vals    []field // parallel to allowed; key nil when absent
}

// get returns the pair for key and whether it was given.
func (fs fieldSet) get(key string) (field, bool) {
	for i, a := range fs.allowed {
		if a == key {
			return fs.vals[i], fs.vals[i].key != nil
		}
	}
	return field{}, false
}

// fields returns the pairs of mapping m, reporting keys that are not strings,
// not in allowed, or repeated (the first occurrence wins).
func (d *decoder) fields(m *yaml.Node, what string, allowed []string) fieldSet {
	fs := fieldSet{allowed, make([]field, len(allowed))}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			d.ps.Add(k.Line, k.Column, "keys of %s must be strings, got %s", what, kindName(k))
			continue
		}
		j := slices.Index(allowed, k.Value)
		if j < 0 {
			d.ps.Add(k.Line, k.Column, "unknown key %q in %s%s: want %s", k.Value, what, suggest(k.Value, allowed), strings.Join(allowed, ", "))
			continue
		}
		if prev := fs.vals[j].key; prev != nil {
			d.ps.Add(k.Line, k.Column, "key %q repeated in %s: first given at line %d", k.Value, what, prev.Line)
			continue
		}
		fs.vals[j] = field{k, v}
	}
	return fs
}

// str returns the text of a scalar node. Null is the empty string; strings
// and numbers (project: 2024) are taken as written; anything else — lists,
// mappings, booleans, timestamps, custom tags — is a problem.
func (d *decoder) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.ScalarNode {
		switch n.Tag {
		case "!!str", "!!int", "!!float":
			return n.Value, true
		case "!!null":
			return "", true
		}
	}
	d.ps.Add(n.Line, n.Column, "%s must be a string, got %s", what, kindName(n))
	return "", false
}

// fail records an engine validation error at n's position.
func (d *decoder) fail(n *yaml.Node, err error) {
	d.ps.Add(n.Line, n.Column, "%s", engine.ErrorMessage(err))
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// kindName describes a node for "got …" messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return "a string"
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean (quote it to make it a string)"
		case "!!null":
			return "nothing"
		case "!!timestamp":
			return "a timestamp (quote it to make it a string)"
		}
		return "a value tagged " + n.Tag
	}
	return "an empty document"
}

func itoa(n int) string { return strconv.Itoa(n) }

// suggest returns ` (did you mean "x"?)` when key is within two edits of an
// allowed key (engine.Suggest: the closest one).
func suggest(key string, allowed []string) string {
	if a := engine.Suggest(key, allowed); a != "" {
		return ` (did you mean "` + a + `"?)`
	}
	return ""
}

// hasWord reports whether s has a letter or a digit: a text without one
// gives an embedder nothing to work with (the lexical one refuses it).
func hasWord(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// control returns the first control character of s other than tab and
// newline (escapes such as "\x00" let them into a YAML string).
func control(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) && r != '\t' && r != '\n' {
			return r, true
		}
	}
	return 0, false
}

// fold is the form examples are compared in: lower case, runs of white space
// folded to one space, trimmed. Text already in that form is returned as is.
func fold(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}
