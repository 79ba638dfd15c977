package registry

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// decoder turns yaml.v3 nodes into definitions, recording every problem with
// the line and column of the node it is about.
type decoder struct {
	name       string // the file, as problems name it
	source     string // the source name unless the YAML sets one
	derived    bool   // source was derived from the file name
	unnamed    bool   // neither a file nor a name was given: the YAML must have name:
	allowEmpty bool
	ps         engine.Problems // bounded by MaxProblems, maxListed of them spelt out
}

var (
	ruleKeys  = []string{"rule_id", "category", "severity", "template", "examples", "contrary", "prefer", "avoid", "scope", "topic", "enforce"}
	scopeKeys = []string{"environment", "project", "agent_family", "context_tags", "exclude_tags"}
)

// registry decodes the top-level mapping and every rule. It returns an error
// only for ETOOLARGE; problems are recorded in d.
func (d *decoder) registry(root *yaml.Node) (*Registry, error) {
	if root.Kind != yaml.MappingNode {
		d.ps.Add(root.Line, root.Column, "the registry must be a mapping with version and rules, got %s", kindName(root))
		return nil, nil
	}
	f := d.fields(root, "the registry", topKeys)
	reg := &Registry{file: d.name}
	if v, ok := f.get("version"); !ok {
		d.ps.Add(root.Line, root.Column, "missing version: want version: %d", CurrentVersion)
	} else if reg.version, ok = d.version(v.val); !ok {
		return nil, nil // another version's rules mean something else: stop here
	}
	reg.name = d.sourceName(root, f)
	rules, ok := f.get("rules")
	switch {
	case !ok:
		d.ps.Add(root.Line, root.Column, "missing rules: want a list of rules")
		return nil, nil
	case rules.val.Kind != yaml.SequenceNode:
		d.ps.Add(rules.val.Line, rules.val.Column, "rules must be a list, got %s", kindName(rules.val))
		return nil, nil
	case len(rules.val.Content) > MaxRules:
		return nil, engine.Errorf(engine.ETOOLARGE, "%s:%d:%d: %d rules: at most %d",
			d.name, rules.val.Line, rules.val.Column, len(rules.val.Content), MaxRules)
	}
	items := rules.val.Content
	if len(items) == 0 && !d.allowEmpty && d.ps.Len() == 0 { // only news in an otherwise valid file
		d.ps.Add(rules.val.Line, rules.val.Column,
			"the registry has no rules: syncing it would archive every rule of registry %q; to empty that registry on purpose, sync it with --allow-empty (allow_empty=true over HTTP)",
			reg.name)
		return nil, nil
	}
	reg.defs = make([]engine.Definition, 0, len(items))
	reg.lines = make([]int, 0, len(items))
	reg.contrary = make([][]string, 0, len(items))
	reg.sides = make([]engine.Sides, 0, len(items))
	reg.checks = make([][]Check, 0, len(items))
	reg.index = make(map[string]int, len(items))
	seen := make(map[string]int, len(items)) // rule id → line, valid or not
	for i, item := range items {
		def, contrary, sides, checks, idNode, ok := d.rule(i+1, item)
		if idNode != nil {
			if line, dup := seen[idNode.Value]; dup {
				d.ps.Add(idNode.Line, idNode.Column, "duplicate rule_id %q: already defined at line %d", idNode.Value, line)
				continue
			}
			seen[idNode.Value] = idNode.Line
		}
		if !ok {
			continue
		}
		def.Rule.Registry = reg.name
		reg.index[def.Rule.RuleID] = len(reg.defs)
		reg.defs = append(reg.defs, def)
		reg.lines = append(reg.lines, item.Line)
		reg.contrary = append(reg.contrary, contrary)
		if sides.Empty() {
			sides = engine.DeriveSides(def.Rule.Text)
		}
		reg.sides = append(reg.sides, sides)
		reg.checks = append(reg.checks, checks)
	}
	return reg, nil
}

var topKeys = []string{"version", "name", "rules"}

// sourceName returns the registry's name: its top-level name: when given,
// else the caller's (or the file's) name, recording a problem when the one
// used is not a valid source name.
func (d *decoder) sourceName(root *yaml.Node, f fieldSet) string {
	if n, ok := f.get("name"); ok {
		v, ok := d.str(n.val, "name")
		if !ok {
			return ""
		}
		if err := engine.ValidateRegistryName(v); err != nil {
			d.fail(n.val, err)
		}
		return v
	}
	if d.unnamed {
		d.ps.Add(root.Line, root.Column, "the registry has no name: add a top-level name: naming its source (e.g. name: team), or give the name when syncing it")
		return ""
	}
	if err := engine.ValidateRegistryName(d.source); err != nil {
		how := "the name given"
		if d.derived {
			how = "the file name"
		}
		d.ps.Add(root.Line, root.Column, "%s (from %s): add a top-level name: of lowercase letters, digits, '-', '_' and '.'",
			engine.ErrorMessage(err), how)
	}
	return d.source
}

// version reads the version value; ok is false when it is not one this
// build knows.
func (d *decoder) version(n *yaml.Node) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		d.ps.Add(n.Line, n.Column, "version must be an integer, got %s", kindName(n))
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil || v != CurrentVersion {
		d.ps.Add(n.Line, n.Column, "unknown version %s: this build reads version %d", n.Value, CurrentVersion)
		return 0, false
	}
	return v, true
}

// rule decodes the n-th (1-based) rule, its contrary phrasings, the sides
// it gives (prefer:, avoid:) and its enforce checks. idNode is
// the rule_id value when it is a well-formed id (for duplicate detection even
// if other fields are bad); ok is false when the rule had any problem.
func (d *decoder) rule(n int, m *yaml.Node) (def engine.Definition, contrary []string, sides engine.Sides, checks []Check, idNode *yaml.Node, ok bool) {
	if m.Kind != yaml.MappingNode {
		d.ps.Add(m.Line, m.Column, "rule %d must be a mapping with rule_id, category, severity and template, got %s", n, kindName(m))
		return def, nil, sides, nil, nil, false
	}
	before := d.ps.Len()
	what := "rule " + itoa(n)
	f := d.fields(m, what, ruleKeys)
	r := &def.Rule
	r.Source, r.Status = engine.SourceRegistry, engine.StatusActiveEligible

	if id, ok := d.required(m, f, what, "rule_id"); ok {
		if err := engine.ValidateRuleID(id.Value); err != nil {
			d.fail(id, err)
		} else {
			r.RuleID, idNode = id.Value, id
			what = "rule " + id.Value
		}
	}
	if c, ok := d.required(m, f, what, "category"); ok {
		if err := engine.ValidateCategory(c.Value); err != nil {
			d.fail(c, err)
		}
		r.Category = c.Value
	}
	if s, ok := d.required(m, f, what, "severity"); ok {
		sev, err := engine.ParseSeverity(s.Value)
		if err != nil {
			d.fail(s, err)
		}
		r.Severity = sev
	}
	if t, ok := d.required(m, f, what, "template"); ok {
		r.Text = strings.TrimSpace(t.Value)
		if err := engine.ValidateText("template", r.Text, engine.MaxRuleTextLength); err != nil {
			d.fail(t, err)
		} else if !hasWord(r.Text) {
			d.ps.Add(t.Line, t.Column, "template has no letter or digit: there is nothing to match a correction against")
		} else if c, ok := control(r.Text); ok {
			d.ps.Add(t.Line, t.Column, "template has the control character %U", c)
		}
	}
	if e, ok := f.get("examples"); ok {
		def.Examples = d.phrasings(e.val, "examples", "example", r.Text, nil)
	}
	if c, ok := f.get("contrary"); ok {
		contrary = d.phrasings(c.val, "contrary", "contrary phrasing", r.Text, def.Examples)
	}
	sides = d.sides(f)
	if s, ok := f.get("scope"); ok {
		r.Scope = d.scope(s.val)
	}
	if t, ok := f.get("topic"); ok {
		if v, ok := d.str(t.val, "topic"); ok && v != "" {
			r.Topic = strings.ToLower(strings.TrimSpace(v))
			if err := engine.ValidateScopeValue("topic", r.Topic); err != nil {
				d.fail(t.val, err)
			}
		}
	}
	if e, ok := f.get("enforce"); ok {
		checks = d.checks(e.val, r.Severity)
	}
	return def, contrary, sides, checks, idNode, d.ps.Len() == before
}

// required returns the string value node of a field that must be present and
// non-empty.
func (d *decoder) required(m *yaml.Node, f fieldSet, what, key string) (*yaml.Node, bool) {
	p, ok := f.get(key)
	if !ok {
		d.ps.Add(m.Line, m.Column, "%s: missing %s", what, key)
		return nil, false
	}
	v, ok := d.str(p.val, key)
	if !ok {
		return nil, false
	}
	if strings.TrimSpace(v) == "" {
		d.ps.Add(p.val.Line, p.val.Column, "%s is empty", key)
		return nil, false
	}
	return p.val, true
}

// phrasings decodes the list given under key (examples, contrary), whose
// items what names in problems: strings, each non-empty, within the text
// limit, not repeating another of the list, the template or one of others (a
// contrary phrasing cannot also be an example).
func (d *decoder) phrasings(n *yaml.Node, key, what, template string, others []string) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.ps.Add(n.Line, n.Column, "%s must be a list of strings, got %s", key, kindName(n))
		return nil
	}
	if len(n.Content) > MaxExamples {
		d.ps.Add(n.Line, n.Column, "%d %ss: at most %d", len(n.Content), what, MaxExamples)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	seen := make(map[string]int, len(n.Content))
	tkey := fold(template)
	other := make(map[string]bool, len(others))
	for _, o := range others {
		other[fold(o)] = true
	}
	for _, e := range n.Content {
		v, ok := d.str(e, what)
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if err := engine.ValidateText(what, v, engine.MaxRuleTextLength); err != nil {
			d.fail(e, err)
			continue
		}
		if !hasWord(v) {
			d.ps.Add(e.Line, e.Column, "%s has no letter or digit: there is nothing to match a correction against", what)
			continue
		}
		if c, ok := control(v); ok {
			d.ps.Add(e.Line, e.Column, "%s has the control character %U", what, c)
			continue
		}
		key := fold(v)
		if line, dup := seen[key]; dup {
			d.ps.Add(e.Line, e.Column, "%s repeated: already given at line %d", what, line)
			continue
		}
		if key == tkey {
			d.ps.Add(e.Line, e.Column, "%s repeats the template", what)
			continue
		}
		if other[key] {
			d.ps.Add(e.Line, e.Column, "%s is also an example: a phrasing cannot both affirm and contradict its rule", what)
			continue
		}
		seen[key] = e.Line
		out = append(out, v)
	}
	return out
}
