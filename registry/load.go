package registry

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// Load reads and parses the registry file at path; problems are reported
// under the path as given. Errors: EINVALID when the file cannot be read (it
// does not exist, is a directory, is not readable) or is not a valid registry
// (a *ValidationError listing every problem); ETOOLARGE when it is larger than
// MaxFileSize or holds more than MaxRules rules.
func Load(path string) (*Registry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, readError(path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileSize {
		return nil, tooLarge(path, st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, readError(path, err)
	}
	return Parse(data, path)
}

func readError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return engine.Errorf(engine.EINVALID, "registry file %s does not exist", path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return engine.Errorf(engine.EINVALID, "cannot read registry file %s: %v", path, err)
}

func tooLarge(name string, size int64) error {
	return engine.Errorf(engine.ETOOLARGE, "registry %s is %d bytes: at most %d (16 MiB)", name, size, MaxFileSize)
}

// ParseOptions tune ParseWith. The zero value parses a non-empty registry
// that names itself (top-level name:), reported under "registry".
type ParseOptions struct {
	// File names the input in problems: a path, "default". Empty means
	// Name, else "registry"; with neither, the YAML must have a name:.
	File string
	// Name is the registry's source name when the YAML has no top-level
	// name: (which wins). Empty means File's base name without its
	// extension, lower-cased ("rules/My-Team.yaml" → "my-team").
	Name string
	// AllowEmpty accepts a registry without rules. Syncing one archives every
	// rule of its source, so it is refused unless asked for.
	AllowEmpty bool
}

// Parse parses and validates a registry, refusing an empty one: ParseWith
// with File name (a path, or "default") and the source name derived from it.
func Parse(data []byte, name string) (*Registry, error) {
	return ParseWith(data, ParseOptions{File: name})
}

// ParseWith parses and validates a registry; opts.File prefixes every
// problem. A registry is one YAML document:
//
//	version: 1
//	name: team-rules        # optional: the source name, else opts.Name
//	rules:
//	  - rule_id: tool.no-sed-for-file-editing
//	    category: tool_preference
//	    severity: must
//	    template: "Never use sed … to edit files"
//	    examples: ["stop editing files with sed"]
//	    scope: {environment: work, context_tags: [cli]}
//	    topic: file-editing
//
// Every definition it yields has Rule.Registry set to the registry's name
// (Registry.Name): 1–64 lowercase letters, digits, '-', '_' and '.'.
//
// Errors: ETOOLARGE when data is over MaxFileSize or holds more than MaxRules
// rules; otherwise a *ValidationError (code EINVALID) listing every problem
// found: invalid UTF-8 or characters YAML forbids; YAML syntax; anchors and
// aliases (refused outright, so a "billion laughs" file costs no more than its
// size); unknown or repeated keys; wrong types; an unknown version; a missing
// rules list, or an empty one unless opts.AllowEmpty; a malformed name (or,
// without one, a file name that is not a valid source name; with neither
// opts.File nor opts.Name, a missing name); malformed or
// duplicate rule ids; unknown severities; malformed categories; empty or
// over-long templates and examples, or ones without a letter or digit or with
// control characters; repeated examples; invalid scope values and topics. A
// registry with any problem yields no rules at all.
func ParseWith(data []byte, opts ParseOptions) (reg *Registry, err error) {
	name := opts.File
	if name == "" {
		name = opts.Name
	}
	if name == "" {
		name = "registry"
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge(name, int64(len(data)))
	}
	d := &decoder{name: name, source: opts.Name, allowEmpty: opts.AllowEmpty, unnamed: opts.File == "" && opts.Name == "",
		ps: engine.Problems{Max: MaxProblems, Listed: maxListed}}
	if d.source == "" {
		d.source, d.derived = SourceName(name), true
	}
	if line, col, msg := badByte(data); msg != "" {
		d.ps.Add(line, col, "%s", msg)
		return nil, d.ps.Err(name)
	}
	root := d.parseDocument(data)
	if root == nil || !d.noAliases(root) {
		return nil, d.ps.Err(name)
	}
	reg, err = d.registry(root)
	if err != nil {
		return nil, err
	}
	if err := d.ps.Err(name); err != nil {
		return nil, err
	}
	return reg, nil
}

// SourceName derives a registry's source name from a file name: its base
// name without the extension, lower-cased ("rules/My-Team.yaml" →
// "my-team"). It does not validate the result.
func SourceName(file string) string {
	base := filepath.Base(file)
	return strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
}

// badByte finds what yaml.v3 refuses without saying where: the first invalid
// UTF-8 sequence or character YAML does not allow (C0 controls other than
// tab, LF and CR; DEL; C1 controls other than NEL; U+FFFE, U+FFFF), and
// returns its 1-based line and column (in characters) and a message, or "".
func badByte(data []byte) (line, col int, msg string) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := rune(data[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(data[i:])
		}
		switch {
		case r == utf8.RuneError && size == 1:
			return line, col, fmt.Sprintf("invalid UTF-8 (byte 0x%02x): a registry is UTF-8 text", data[i])
		case r == '\n':
			line, col = line+1, 0
		case r < 0x20 && r != '\t' && r != '\r', r == 0x7f, r >= 0x80 && r <= 0x9f && r != 0x85, r == 0xfffe, r == 0xffff:
			return line, col, fmt.Sprintf("the character %U is not allowed in YAML", r)
		}
		i += size
		col++
	}
	return 0, 0, ""
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseDocument parses data into a node tree and returns its root node, or
// nil after recording why there is none. yaml.v3 does not expand aliases when
// it builds nodes, so this is linear in the input.
func (d *decoder) parseDocument(data []byte) (root *yaml.Node) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 has panicked on hostile input before
			root = nil
			d.ps.Add(0, 0, "malformed YAML: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			d.ps.Add(0, 0, "the registry is empty: want version: 1 and a rules list")
		} else {
			d.syntax(err)
		}
		return nil
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		d.syntax(err)
		return nil
	default:
		d.ps.Add(next.Line, next.Column, "a second YAML document: a registry is a single document")
		return nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		d.ps.Add(doc.Line, doc.Column, "malformed YAML document")
		return nil
	}
	return doc.Content[0]
}

// syntax records a yaml.v3 parse error, taking its line out of the message.
func (d *decoder) syntax(err error) {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		d.ps.Add(line, 0, "YAML syntax: %s", m[2])
		return
	}
	d.ps.Add(0, 0, "YAML syntax: %s", strings.TrimPrefix(err.Error(), "yaml: "))
}

// noAliases walks the whole tree (iteratively: yaml.v3 allows nesting 10,000
// deep) and reports every anchor and alias. Refusing them outright is what
// makes a YAML bomb harmless: nothing is ever expanded.
func (d *decoder) noAliases(root *yaml.Node) bool {
	ok := true
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Anchor != "" {
			ok = false
			d.ps.Add(n.Line, n.Column, "anchor &%s: anchors and aliases are not allowed in a registry", n.Anchor)
		}
		if n.Kind == yaml.AliasNode {
			ok = false
			d.ps.Add(n.Line, n.Column, "alias *%s: anchors and aliases are not allowed in a registry", n.Value)
			continue // never follow n.Alias
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, n.Content[i])
		}
	}
	return ok
}
