package ui

import (
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

// syncPlan is the preview of a registry sync, memory.PlanRegistry's dry run
// made readable: the rules it would add, update and archive, the user's
// rules whose ids it defines and leaves alone, with their texts and, for an
// update, what changes.
type syncPlan struct {
	Added, Updated, Archived, Kept []planItem
	Unchanged                      int
	DefaultFirst                   bool
}

type planItem struct {
	ID, Text, Note string
}

// describePlan pairs the ids of plan (which decides) with reg's
// definitions and the rules as they are now (which only describe): the
// text a rule would get or has, and what an update changes.
func describePlan(reg *registry.Registry, plan memory.RegistryPlan, rules []engine.RuleView) *syncPlan {
	byID := make(map[string]engine.RuleView, len(rules))
	for _, r := range rules {
		byID[r.RuleID] = r
	}
	def := func(id string) engine.Rule {
		d, _, _ := reg.Lookup(id)
		return d.Rule
	}
	p := &syncPlan{DefaultFirst: plan.DefaultFirst}
	for _, id := range plan.Added {
		p.Added = append(p.Added, planItem{ID: id, Text: def(id).Text})
	}
	for _, id := range plan.Updated {
		d := def(id)
		p.Updated = append(p.Updated, planItem{ID: id, Text: d.Text, Note: updateNote(byID[id], d, reg.Name())})
	}
	for _, id := range plan.Archived {
		p.Archived = append(p.Archived, planItem{ID: id, Text: byID[id].Text})
	}
	for _, id := range plan.Kept {
		cur := byID[id]
		p.Kept = append(p.Kept, planItem{ID: id, Text: cur.Text, Note: "a " + cur.Source + " rule: kept as it is"})
	}
	p.Unchanged = len(plan.Unchanged)
	return p
}

// updateNote says what an update does to cur: restored from the archive,
// taken over from another registry, the definition fields that change, or
// its examples when no field shown changes.
func updateNote(cur engine.RuleView, def engine.Rule, name string) string {
	var notes []string
	if cur.Status == engine.StatusArchived {
		notes = append(notes, "restored from the archive")
	}
	if cur.Registry != "" && cur.Registry != name {
		notes = append(notes, "taken over from registry "+cur.Registry)
	}
	var fields []string
	for _, f := range []struct {
		name string
		same bool
	}{
		{"text", cur.Text == def.Text}, {"category", cur.Category == def.Category},
		{"severity", cur.Severity == def.Severity}, {"topic", cur.Topic == def.Topic},
		{"scope", sameScope(cur.Scope, def.Scope)},
	} {
		if !f.same {
			fields = append(fields, f.name)
		}
	}
	switch {
	case len(fields) > 0:
		notes = append(notes, "changes "+joinWords(fields))
	case len(notes) == 0:
		notes = append(notes, "changes its examples")
	}
	return joinWords(notes)
}

// joinWords joins words as a sentence does: "a", "a and b", "a, b and c".
func joinWords(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	out := ""
	for _, s := range w[:len(w)-1] {
		out += s + ", "
	}
	return out[:len(out)-2] + " and " + w[len(w)-1]
}
