package registry

import (
	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
)

// Sides returns the sides of rule id: what it prefers and what it avoids,
// as its prefer: and avoid: give them, or engine.DeriveSides of its template
// when it gives neither. An unknown id has empty Sides. The slices must not
// be modified.
func (r *Registry) Sides(id string) engine.Sides {
	i, ok := r.index[id]
	if !ok {
		return engine.Sides{}
	}
	return r.sides[i]
}

// sides decodes a rule's prefer: and avoid: lists, recording a problem at
// the term for each term engine.ValidateSides refuses, is repeated on its
// side or is given on both sides, and at the list for a side with too many
// terms.
func (d *decoder) sides(f fieldSet) engine.Sides {
	var s engine.Sides
	lines := map[string]int{} // a preferred term → its line
	for _, key := range []string{"prefer", "avoid"} {
		p, ok := f.get(key)
		if !ok || isNull(p.val) {
			continue
		}
		n := p.val
		if n.Kind != yaml.SequenceNode {
			d.ps.Add(n.Line, n.Column, "%s must be a list of terms, got %s", key, kindName(n))
			continue
		}
		if len(n.Content) > engine.MaxSideTerms {
			d.ps.Add(n.Line, n.Column, "%s has %d terms: at most %d", key, len(n.Content), engine.MaxSideTerms)
			continue
		}
		terms := make([]string, 0, len(n.Content))
		seen := map[string]int{}
		for _, e := range n.Content {
			t, ok := d.str(e, key+" term")
			if !ok {
				continue
			}
			one := engine.Sides{Prefer: []string{t}}
			if key == "avoid" {
				one = engine.Sides{Avoid: []string{t}}
			}
			if err := engine.ValidateSides(one); err != nil {
				d.fail(e, err)
				continue
			}
			if line, dup := seen[t]; dup {
				d.ps.Add(e.Line, e.Column, "%s term %q repeated: already given at line %d", key, t, line)
				continue
			}
			if line, both := lines[t]; both && key == "avoid" {
				d.ps.Add(e.Line, e.Column, "term %q is both avoided and preferred (line %d): give it on one side only", t, line)
				continue
			}
			seen[t] = e.Line
			if key == "prefer" {
				lines[t] = e.Line
			}
			terms = append(terms, t)
		}
		if key == "prefer" {
			s.Prefer = terms
		} else {
			s.Avoid = terms
		}
	}
	return s
}
