package engine

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Scope says where a rule applies. An empty field is a wildcard.
type Scope struct {
	Environment string   `json:"environment,omitempty"`
	Project     string   `json:"project,omitempty"`
	AgentFamily string   `json:"agent_family,omitempty"`
	ContextTags []string `json:"context_tags,omitempty"`
	ExcludeTags []string `json:"exclude_tags,omitempty"`
}

// MaxScopeValueLength bounds a scope field or tag; MaxScopeTags bounds each tag list.
const (
	MaxScopeValueLength = 128
	MaxScopeTags        = 64
)

var scopeValuePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._:/@+-]*$`)

// ValidateScopeValue reports an EINVALID error naming field unless v (already
// normalised) is 1–128 characters of a-z, 0-9 and . _ : / @ + - starting with
// a letter or digit.
func ValidateScopeValue(field, v string) error {
	if len(v) > MaxScopeValueLength {
		return Errorf(EINVALID, "%s is %d bytes long: at most %d", field, len(v), MaxScopeValueLength)
	}
	if !utf8.ValidString(v) || !scopeValuePattern.MatchString(v) {
		return Errorf(EINVALID, "%s %q has characters that are not allowed: use a-z, 0-9 and . _ : / @ + -, starting with a letter or digit", field, v)
	}
	return nil
}

// Normalize trims and lower-cases every field, and sorts and de-duplicates the
// tag lists (empty tags are dropped). It does not validate.
func (s Scope) Normalize() Scope {
	return Scope{
		Environment: normValue(s.Environment),
		Project:     normValue(s.Project),
		AgentFamily: normValue(s.AgentFamily),
		ContextTags: normTags(s.ContextTags),
		ExcludeTags: normTags(s.ExcludeTags),
	}
}

func normValue(v string) string { return strings.ToLower(strings.TrimSpace(v)) }

func normTags(tags []string) []string {
	if len(tags) == 0 {
		return nil
	}
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if t = normValue(t); t != "" {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// Validate checks every set field and tag of a normalised scope and returns an
// EINVALID error naming the first bad one.
func (s Scope) Validate() error {
	for _, f := range []struct{ name, v string }{
		{"scope environment", s.Environment}, {"scope project", s.Project}, {"scope agent_family", s.AgentFamily},
	} {
		if f.v != "" {
			if err := ValidateScopeValue(f.name, f.v); err != nil {
				return err
			}
		}
	}
	for _, l := range []struct {
		name string
		tags []string
	}{{"context tag", s.ContextTags}, {"exclude tag", s.ExcludeTags}} {
		if len(l.tags) > MaxScopeTags {
			return Errorf(EINVALID, "%d %ss: at most %d", len(l.tags), l.name, MaxScopeTags)
		}
		for _, t := range l.tags {
			if err := ValidateScopeValue(l.name, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParseScope normalises and validates s in one step.
func ParseScope(s Scope) (Scope, error) {
	// The bound holds for what was given, before blanks and repeats are
	// folded away: a request over it is refused whatever it folds to.
	for _, l := range []struct {
		name string
		tags []string
	}{{"context tag", s.ContextTags}, {"exclude tag", s.ExcludeTags}} {
		if len(l.tags) > MaxScopeTags {
			return s, Errorf(EINVALID, "%d %ss: at most %d", len(l.tags), l.name, MaxScopeTags)
		}
	}
	n := s.Normalize()
	return n, n.Validate()
}

// Matches reports whether a rule with scope s applies to a request in
// context req: every set field of s equals req's, all of s's context tags are
// among req's tags, and none of s's exclude tags is. Both scopes must be
// normalised.
func (s Scope) Matches(req Scope) bool {
	if s.Environment != "" && s.Environment != req.Environment {
		return false
	}
	if s.Project != "" && s.Project != req.Project {
		return false
	}
	if s.AgentFamily != "" && s.AgentFamily != req.AgentFamily {
		return false
	}
	for _, t := range s.ContextTags {
		if !slices.Contains(req.ContextTags, t) {
			return false
		}
	}
	for _, t := range s.ExcludeTags {
		if slices.Contains(req.ContextTags, t) {
			return false
		}
	}
	return true
}

// Scope fields a rule's scope can fail to admit a context on, as
// ScopeMismatch.Field names them.
const (
	ScopeFieldEnvironment = "environment"
	ScopeFieldProject     = "project"
	ScopeFieldAgentFamily = "agent_family"
	ScopeFieldContextTag  = "context_tag"
	ScopeFieldExcludeTag  = "exclude_tag"
)

// ScopeMismatch is one reason a rule's scope does not admit a context: a
// field set to another value (Rule and Context the two values), a context
// tag the context lacks or an exclude tag it has (Rule the tag).
type ScopeMismatch struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Context string `json:"context,omitempty"`
}

// String says the mismatch in words: "environment is work, not personal",
// "needs context tag logs", "excludes tag migration".
func (m ScopeMismatch) String() string {
	switch m.Field {
	case ScopeFieldContextTag:
		return "needs context tag " + m.Rule
	case ScopeFieldExcludeTag:
		return "excludes tag " + m.Rule
	}
	ctx := m.Context
	if ctx == "" {
		ctx = "unset"
	}
	return m.Field + " is " + m.Rule + ", not " + ctx
}

// Mismatches lists every reason a rule with scope s does not apply to a
// request in context req, in field order (environment, project,
// agent_family, context tags, exclude tags): empty exactly when s.Matches(req).
// Both scopes must be normalised.
func (s Scope) Mismatches(req Scope) []ScopeMismatch {
	var out []ScopeMismatch
	for _, f := range []struct{ field, rule, ctx string }{
		{ScopeFieldEnvironment, s.Environment, req.Environment},
		{ScopeFieldProject, s.Project, req.Project},
		{ScopeFieldAgentFamily, s.AgentFamily, req.AgentFamily},
	} {
		if f.rule != "" && f.rule != f.ctx {
			out = append(out, ScopeMismatch{Field: f.field, Rule: f.rule, Context: f.ctx})
		}
	}
	for _, t := range s.ContextTags {
		if !slices.Contains(req.ContextTags, t) {
			out = append(out, ScopeMismatch{Field: ScopeFieldContextTag, Rule: t})
		}
	}
	for _, t := range s.ExcludeTags {
		if slices.Contains(req.ContextTags, t) {
			out = append(out, ScopeMismatch{Field: ScopeFieldExcludeTag, Rule: t})
		}
	}
	return out
}

// Specificity scores how narrow a scope is: environment 1, project 2,
// agent_family 1, and 0.5 if it has context tags (however many). Exclude
// tags do not count: they narrow where a rule applies without making it more
// specific to the contexts where it does.
func (s Scope) Specificity() float64 {
	var v float64
	if s.Environment != "" {
		v++
	}
	if s.Project != "" {
		v += 2
	}
	if s.AgentFamily != "" {
		v++
	}
	if len(s.ContextTags) > 0 {
		v += 0.5
	}
	return v
}

// String renders the scope as environment/project/agent_family[tags; not
// excluded tags], with "*" for wildcards: "work/api/*[cli]",
// "*/*/*[not migration]", "work/*/*[go,cli; not generated]". The CLI shows
// every scope with it.
func (s Scope) String() string {
	part := func(v string) string {
		if v == "" {
			return "*"
		}
		return v
	}
	out := part(s.Environment) + "/" + part(s.Project) + "/" + part(s.AgentFamily)
	var tags []string
	if len(s.ContextTags) > 0 {
		tags = append(tags, strings.Join(s.ContextTags, ","))
	}
	if len(s.ExcludeTags) > 0 {
		tags = append(tags, "not "+strings.Join(s.ExcludeTags, ","))
	}
	if len(tags) > 0 {
		out += "[" + strings.Join(tags, "; ") + "]"
	}
	return out
}
