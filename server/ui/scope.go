package ui

import (
	"net/url"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// scopeForm is a scope as the forms hold it: tags comma-separated.
type scopeForm struct {
	Environment, Project, AgentFamily, Tags, Exclude string
}

// scopeParams are the query parameters of a scope the persona preview
// reads; the rules list reads exclude_tags too.
var scopeParams = []string{"environment", "project", "agent_family", "context_tags"}

// scopeFormOf reads the scope fields of a query or form.
func scopeFormOf(v url.Values) scopeForm {
	get := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	return scopeForm{Environment: get("environment"), Project: get("project"), AgentFamily: get("agent_family"),
		Tags: get("context_tags"), Exclude: get("exclude_tags")}
}

// scopeFormFrom is the form of scope s.
func scopeFormFrom(s engine.Scope) scopeForm {
	return scopeForm{Environment: s.Environment, Project: s.Project, AgentFamily: s.AgentFamily,
		Tags: strings.Join(s.ContextTags, ", "), Exclude: strings.Join(s.ExcludeTags, ", ")}
}

func (f scopeForm) empty() bool { return f == scopeForm{} }

// parse returns the scope, normalised and validated (EINVALID naming the
// bad field).
func (f scopeForm) parse() (engine.Scope, error) {
	return engine.ParseScope(engine.Scope{Environment: f.Environment, Project: f.Project, AgentFamily: f.AgentFamily,
		ContextTags: splitTags(f.Tags), ExcludeTags: splitTags(f.Exclude)})
}

// splitTags splits a comma- or space-separated tag list.
func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}
