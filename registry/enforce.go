package registry

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// MaxChecks bounds the checks of one rule's enforce.
const MaxChecks = 8

// DefaultCheckField is the tool input key a check reads when it names none:
// the command of a Bash call.
const DefaultCheckField = "command"

var checkKeys = []string{"tool", "field", "pattern"}

// Check is a deterministic test of a must rule on an agent's tool call: the
// call breaks the rule when its tool name matches Tool (the whole name, so
// "Write|Edit" names two tools) and the string input field Field matches
// Pattern (anywhere in it).
type Check struct {
	Tool    *regexp.Regexp
	Field   string
	Pattern *regexp.Regexp
	Line    int // the line of the check in the registry
}

// Matches reports whether a call of tool with input breaks the check. A
// missing or non-string field does not match.
func (c Check) Matches(tool string, input map[string]any) bool {
	if !c.Tool.MatchString(tool) {
		return false
	}
	v, ok := input[c.Field].(string)
	return ok && c.Pattern.MatchString(v)
}

// Checks returns the checks of rule id's enforce (nil for none or an
// unknown rule).
func (r *Registry) Checks(id string) []Check {
	i, ok := r.index[id]
	if !ok || i >= len(r.checks) {
		return nil
	}
	return r.checks[i]
}

// checks decodes a rule's enforce: one check or a list of them, each a
// mapping with tool and pattern (regular expressions, RE2 syntax) and an
// optional field; only a must rule may carry one.
func (d *decoder) checks(n *yaml.Node, sev engine.Severity) []Check {
	if isNull(n) {
		return nil
	}
	if sev != engine.SeverityMust {
		what := fmt.Sprintf("a %s rule", sev)
		if sev == "" {
			what = "a rule without a valid severity"
		}
		d.ps.Add(n.Line, n.Column, "enforce is only for must rules: this is %s", what)
		return nil
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	if len(items) > MaxChecks {
		d.ps.Add(n.Line, n.Column, "%d checks: at most %d", len(items), MaxChecks)
		return nil
	}
	var out []Check
	for _, m := range items {
		if m.Kind != yaml.MappingNode {
			d.ps.Add(m.Line, m.Column, "a check must be a mapping with tool and pattern, got %s", kindName(m))
			continue
		}
		f := d.fields(m, "the check", checkKeys)
		c := Check{Field: DefaultCheckField, Line: m.Line}
		ok := true
		if t, found := d.required(m, f, "the check", "tool"); !found {
			ok = false
		} else if c.Tool, ok = d.regexp(t, "^(?:"+t.Value+")$", "tool"); !ok {
			ok = false
		}
		if p, found := d.required(m, f, "the check", "pattern"); !found {
			ok = false
		} else if re, good := d.regexp(p, p.Value, "pattern"); !good {
			ok = false
		} else {
			c.Pattern = re
		}
		if fl, found := f.get("field"); found {
			if v, good := d.str(fl.val, "field"); !good || v == "" {
				if good {
					d.ps.Add(fl.val.Line, fl.val.Column, "field is empty")
				}
				ok = false
			} else {
				c.Field = v
			}
		}
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// regexp compiles expr, recording a problem at n's line that names key and
// the compiler's complaint.
func (d *decoder) regexp(n *yaml.Node, expr, key string) (*regexp.Regexp, bool) {
	re, err := regexp.Compile(expr)
	if err != nil {
		d.ps.Add(n.Line, n.Column, "%s %q is not a regular expression: %v", key, n.Value, err)
		return nil, false
	}
	return re, true
}
