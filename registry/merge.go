package registry

import "strings"

// Merge returns regs as one registry, for what reads the registries in
// force together (the lexical embedder's fit, enforce checks, sides): their
// rules in order, each definition keeping its own source (Rule.Registry), its
// contrary phrasings, sides and checks; a rule id defined twice keeps its
// first definition. Its Name and File are the sources' joined by "+". One registry is returned as it is.
func Merge(regs ...*Registry) *Registry {
	if len(regs) == 1 {
		return regs[0]
	}
	out := &Registry{version: CurrentVersion, index: map[string]int{}}
	names := make([]string, 0, len(regs))
	files := make([]string, 0, len(regs))
	for _, r := range regs {
		names, files = append(names, r.name), append(files, r.file)
		for i, d := range r.defs {
			if _, dup := out.index[d.Rule.RuleID]; dup {
				continue
			}
			out.index[d.Rule.RuleID] = len(out.defs)
			out.defs = append(out.defs, d)
			out.lines = append(out.lines, r.lines[i])
			out.contrary = append(out.contrary, r.contrary[i])
			out.sides = append(out.sides, r.sides[i])
			out.checks = append(out.checks, r.checks[i])
		}
	}
	out.name, out.file = strings.Join(names, "+"), strings.Join(files, "+")
	return out
}
