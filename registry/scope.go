package registry

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// scope decodes a rule's scope mapping, checking each value where it stands
// (engine.ParseScope only names the first bad field, without a position).
func (d *decoder) scope(n *yaml.Node) engine.Scope {
	var s engine.Scope
	if isNull(n) {
		return s
	}
	before := d.ps.Len()
	if n.Kind != yaml.MappingNode {
		d.ps.Add(n.Line, n.Column, "scope must be a mapping of %s, got %s", strings.Join(scopeKeys, ", "), kindName(n))
		return s
	}
	f := d.fields(n, "scope", scopeKeys)
	for _, v := range []struct {
		key string
		dst *string
	}{{"environment", &s.Environment}, {"project", &s.Project}, {"agent_family", &s.AgentFamily}} {
		p, ok := f.get(v.key)
		if !ok {
			continue
		}
		if *v.dst, ok = d.str(p.val, "scope "+v.key); ok && *v.dst != "" {
			*v.dst = strings.ToLower(strings.TrimSpace(*v.dst))
			if err := engine.ValidateScopeValue("scope "+v.key, *v.dst); err != nil {
				d.fail(p.val, err)
			}
		}
	}
	ctxAt, exAt := map[string]*yaml.Node{}, map[string]*yaml.Node{}
	if p, ok := f.get("context_tags"); ok {
		s.ContextTags = d.tags(p.val, "context tag", ctxAt)
	}
	if p, ok := f.get("exclude_tags"); ok {
		s.ExcludeTags = d.tags(p.val, "exclude tag", exAt)
		for _, t := range s.ExcludeTags {
			if c, both := ctxAt[t]; both && exAt[t] != nil {
				e := exAt[t]
				d.ps.Add(e.Line, e.Column, "tag %q is both a context tag (line %d) and an exclude tag: the rule could never apply", t, c.Line)
				delete(exAt, t)
			}
		}
	}
	norm, err := engine.ParseScope(s)
	if err != nil && d.ps.Len() == before {
		d.fail(n, err) // not expected: every field was checked above
	}
	return norm
}

// tags decodes a tag list, recording in at the node where each tag first appears.
func (d *decoder) tags(n *yaml.Node, what string, at map[string]*yaml.Node) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.ps.Add(n.Line, n.Column, "%ss must be a list of strings, got %s", what, kindName(n))
		return nil
	}
	if len(n.Content) > engine.MaxScopeTags {
		d.ps.Add(n.Line, n.Column, "%d %ss: at most %d", len(n.Content), what, engine.MaxScopeTags)
		return nil
	}
	var out []string
	for _, e := range n.Content {
		v, ok := d.str(e, what)
		if !ok {
			continue
		}
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" {
			d.ps.Add(e.Line, e.Column, "empty %s", what)
			continue
		}
		if err := engine.ValidateScopeValue(what, v); err != nil {
			d.fail(e, err)
			continue
		}
		if _, dup := at[v]; !dup {
			at[v] = e
		}
		out = append(out, v)
	}
	return out
}
