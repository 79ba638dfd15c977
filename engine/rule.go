package engine

import (
	"regexp"
	"strings"
	"time"
)

// Severity says how strongly a rule binds: must > should > style.
type Severity string

// The three severities, strongest first.
const (
	SeverityMust   Severity = "must"
	SeverityShould Severity = "should"
	SeverityStyle  Severity = "style"
)

// Rank orders severities for conflict resolution: must 3, should 2, style 1,
// anything else 0.
func (s Severity) Rank() int {
	switch s {
	case SeverityMust:
		return 3
	case SeverityShould:
		return 2
	case SeverityStyle:
		return 1
	}
	return 0
}

// ParseSeverity returns the severity named by s (case-insensitive, trimmed)
// or an EINVALID error naming the accepted values.
func ParseSeverity(s string) (Severity, error) {
	v := Severity(strings.ToLower(strings.TrimSpace(s)))
	if v.Rank() == 0 {
		return "", Errorf(EINVALID, "unknown severity %q: want must, should or style", s)
	}
	return v, nil
}

// Status is a rule's lifecycle state.
type Status string

// Rule statuses. Only active-eligible rules can enter a snapshot; candidates
// are proposals waiting for the user; archived rules keep their history but
// are never injected.
const (
	StatusActiveEligible Status = "active-eligible"
	StatusCandidate      Status = "candidate"
	StatusArchived       Status = "archived"
)

// ParseStatus returns the status named by s or an EINVALID error.
func ParseStatus(s string) (Status, error) {
	switch v := Status(strings.ToLower(strings.TrimSpace(s))); v {
	case StatusActiveEligible, StatusCandidate, StatusArchived:
		return v, nil
	}
	return "", Errorf(EINVALID, "unknown status %q: want active-eligible, candidate or archived", s)
}

// Rule sources.
const (
	SourceRegistry   = "registry"
	SourceUser       = "user"
	SourceCorrection = "correction"
)

// ValidateSource reports an EINVALID error naming s (its first 64
// characters) unless it is one of the rule sources: registry, user or
// correction.
func ValidateSource(s string) error {
	switch s {
	case SourceRegistry, SourceUser, SourceCorrection:
		return nil
	}
	return Errorf(EINVALID, "unknown source %.64q: want registry, user or correction", s)
}

// The four categories LexSona's specification names (each has its own
// thresholds in DefaultConfig); any other lowercase word is accepted as a
// category and gets the default thresholds.
const (
	CategoryToolPreference     = "tool_preference"
	CategoryCommunicationStyle = "communication_style"
	CategorySecurityPolicy     = "security_policy"
	CategoryCodeStyle          = "code_style"
)

// KnownCategories are the four named categories, in the order error
// messages list them.
var KnownCategories = []string{CategoryToolPreference, CategoryCommunicationStyle, CategorySecurityPolicy, CategoryCodeStyle}

var (
	ruleIDPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$`)
	categoryPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

// MaxRuleIDLength and MaxRuleTextLength bound what a rule can hold.
const (
	MaxRuleIDLength   = 128
	MaxRuleTextLength = 4096
)

// ValidateRuleID reports an EINVALID error unless id is lowercase and dotted
// (segments of a-z, 0-9, '-' and '_', e.g. "tool.no-sed-for-file-editing").
func ValidateRuleID(id string) error {
	if id == "" {
		return Errorf(EINVALID, "rule id is empty")
	}
	if len(id) > MaxRuleIDLength {
		return Errorf(EINVALID, "rule id is %d bytes long: at most %d", len(id), MaxRuleIDLength)
	}
	if !ruleIDPattern.MatchString(id) {
		return Errorf(EINVALID, "malformed rule id %q: want lowercase dotted segments of a-z, 0-9, '-' and '_', like tool.no-sed-for-file-editing", id)
	}
	return nil
}

// MaxRegistryNameLength bounds a registry source's name.
const MaxRegistryNameLength = 64

var registryNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// ValidateRegistryName reports an EINVALID error unless name is 1–64
// characters of lowercase letters, digits, '-', '_' and '.', starting with
// a letter or digit and without "..": the name a registry source is known
// by ("default", "team-rules"), never a path's "." or "..".
func ValidateRegistryName(name string) error {
	if name == "" {
		return Errorf(EINVALID, "registry name is empty")
	}
	if len(name) > MaxRegistryNameLength {
		return Errorf(EINVALID, "registry name %.64q… is %d bytes long: at most %d", name, len(name), MaxRegistryNameLength)
	}
	if !registryNamePattern.MatchString(name) || strings.Contains(name, "..") {
		return Errorf(EINVALID, "malformed registry name %q: use lowercase letters, digits, '-', '_' and '.', starting with a letter or digit, without \"..\"", name)
	}
	return nil
}

// ValidateCategory reports an EINVALID error unless c is one lowercase word
// (letters, digits, '_'): "category is required" for an empty one, else
// "malformed category".
func ValidateCategory(c string) error {
	if c == "" {
		return Errorf(EINVALID, "category is required: one of tool_preference, communication_style, security_policy, code_style, or another lowercase word")
	}
	if !categoryPattern.MatchString(c) {
		return Errorf(EINVALID, "malformed category %q: want a lowercase word such as tool_preference, communication_style, security_policy or code_style", c)
	}
	return nil
}

// Rule is a behavioural rule and its Beta evidence.
type Rule struct {
	RuleID          string    `json:"rule_id"`
	Category        string    `json:"category"`
	Severity        Severity  `json:"severity"`
	Text            string    `json:"text"`
	Scope           Scope     `json:"scope"`
	Topic           string    `json:"topic"`
	Alpha           float64   `json:"alpha"`
	Beta            float64   `json:"beta"`
	Reinforcements  int       `json:"reinforcements"`
	CounterExamples int       `json:"counter_examples"`
	FirstSeen       time.Time `json:"first_seen"`
	LastCorrection  time.Time `json:"last_correction"`
	Status          Status    `json:"status"`
	// Source says where the rule came from: registry, user (rules add) or
	// correction (proposed from a correction that matched nothing). Only
	// registry rules are archived when they leave the registry file.
	Source string `json:"source,omitempty"`
	// Registry names the registry source that defines the rule ("default"
	// for the default pack); empty for user and correction rules. Syncing a
	// registry touches only the rules of its own source.
	Registry string `json:"registry,omitempty"`
	// ExceptionOf names the rule this one is a proposed exception to, and
	// ExceptionTag the context tag it carves out (see DetectExceptionPatternCounts).
	ExceptionOf  string `json:"exception_of,omitempty"`
	ExceptionTag string `json:"exception_tag,omitempty"`
	// Stated is the explicit act that put the rule in force at once (see
	// StatedInForce); nil when the rule's evidence alone decides.
	Stated *Statement `json:"stated,omitempty"`
}

// Evidence is n: the corrections observed, not counting the prior.
func (r *Rule) Evidence() int { return r.Reinforcements + r.CounterExamples }

// Validate checks a rule's definition fields (id, category, severity, text,
// topic, status, registry name when set, scope) and returns an EINVALID error naming the first bad one.
func (r *Rule) Validate() error {
	if err := ValidateRuleID(r.RuleID); err != nil {
		return err
	}
	if err := ValidateCategory(r.Category); err != nil {
		return err
	}
	if r.Severity.Rank() == 0 {
		return Errorf(EINVALID, "unknown severity %q: want must, should or style", r.Severity)
	}
	if err := ValidateText("rule text", r.Text, MaxRuleTextLength); err != nil {
		return err
	}
	if !hasLetterOrDigit(r.Text) {
		return Errorf(EINVALID, "rule text %q has no letters or digits: say what the agent should do", CutAtRune(r.Text, 40))
	}
	if r.Topic != "" {
		if err := ValidateScopeValue("topic", r.Topic); err != nil {
			return err
		}
	}
	switch r.Status {
	case StatusActiveEligible, StatusCandidate, StatusArchived:
	default:
		return Errorf(EINVALID, "unknown status %q: want active-eligible, candidate or archived", r.Status)
	}
	if r.Registry != "" {
		if err := ValidateRegistryName(r.Registry); err != nil {
			return err
		}
	}
	return r.Scope.Validate()
}

// NewRule returns a rule at the prior (alpha0, beta0 from cfg) with no
// evidence, first seen and last corrected at now.
func NewRule(id, category string, sev Severity, text string, scope Scope, cfg Config, now time.Time) Rule {
	now = now.UTC()
	return Rule{
		RuleID: id, Category: category, Severity: sev, Text: text, Scope: scope.Normalize(),
		Alpha: cfg.AlphaPrior, Beta: cfg.BetaPrior, FirstSeen: now, LastCorrection: now,
		Status: StatusActiveEligible, Source: SourceUser,
	}
}
