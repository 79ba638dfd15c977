package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode"
)

// CategoryUncategorized is given to rules proposed from a correction until the
// user categorises them.
const CategoryUncategorized = "uncategorized"

// Definition is a rule as a registry defines it: the rule's definition fields
// (id, category, severity, text as template, scope, topic) and extra phrasings
// that are embedded too. Evidence fields of Rule are ignored.
type Definition struct {
	Rule     Rule
	Examples []string
}

// ProposedRuleID derives the id of a rule proposed from a correction:
// "proposed." + up to six slug words of the text + "-" + 6 hex digits of its
// sha256, so the same text always proposes the same id.
func ProposedRuleID(text string) string {
	return "proposed." + slugID(text)
}

// FiledRuleID is the id a rule from text gets once the user accepts it
// into category: a prefix for the category (tool., code., style.,
// security., else user.) + the slug and hash ProposedRuleID uses. The user
// may give another.
func FiledRuleID(text, category string) string {
	prefix := "user."
	switch category {
	case CategoryToolPreference:
		prefix = "tool."
	case CategoryCodeStyle:
		prefix = "code."
	case CategoryCommunicationStyle:
		prefix = "style."
	case CategorySecurityPolicy:
		prefix = "security."
	}
	return prefix + slugID(text)
}

// slugID is up to six slug words of text + "-" + 6 hex digits of its sha256.
func slugID(text string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(words) == 6 {
			break
		}
		words = append(words, w)
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(text)))
	slug := strings.Join(words, "-")
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	if slug == "" {
		slug = "rule"
	}
	return slug + "-" + hex.EncodeToString(sum[:3])
}

// NewCandidateRule returns the candidate rule a correction that matched
// nothing proposes: its text is the user's (white space folded, cut to
// MaxRuleTextLength at a rune boundary), and the correction counts as its first
// reinforcement, so alpha = prior+1 (3 with the defaults), beta = prior (5), n = 1.
func NewCandidateRule(text, category string, scope Scope, cfg Config, now time.Time) Rule {
	t := strings.Join(strings.FieldsFunc(text, unicode.IsSpace), " ")
	t = CutAtRune(t, MaxRuleTextLength)
	if category == "" {
		category = CategoryUncategorized
	}
	r := NewRule(ProposedRuleID(text), category, SeverityShould, t, scope, cfg, now)
	r.Status = StatusCandidate
	r.Source = SourceCorrection
	r.ApplyEvidence(Reinforce, now)
	return r
}

// Confirmation statuses.
const (
	PendingOpen     = "pending"
	PendingAccepted = "accepted"
	PendingRejected = "rejected"
	PendingNewRule  = "new_rule"
)

// Pending is a correction in the confirm band, waiting for the user to say
// which rule (if any) it meant.
type Pending struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	// Instruction is the reporter's one-sentence reading of Text
	// (Correction.Instruction), "" when none was given: a rule proposed
	// from the confirmation takes it as its text.
	Instruction string      `json:"instruction,omitempty"`
	Scope       Scope       `json:"scope"`
	Polarity    Polarity    `json:"polarity"`
	FrameID     string      `json:"frame_id,omitempty"`
	AgentOutput string      `json:"agent_output,omitempty"`
	Candidates  []Candidate `json:"candidates"`
	Model       string      `json:"model,omitempty"`
	Status      string      `json:"status"`
	RuleID      string      `json:"rule_id,omitempty"` // the rule it resolved to
	CreatedAt   time.Time   `json:"created_at"`
	ResolvedAt  *time.Time  `json:"resolved_at,omitempty"`
	// Seen counts the prompts this suggestion stands for: a captured prompt
	// that repeats an open suggestion raises it instead of adding another
	// (1 for a new one); LastSeenAt is when it was raised last.
	Seen       int        `json:"seen"`
	LastSeenAt *time.Time `json:"last_seen_at,omitempty"`
	// Gate is the correction gate's probability for a captured prompt
	// (the highest of the prompts merged into it); nil for a correction
	// someone recorded.
	Gate *float64 `json:"gate,omitempty"`
	// DirectionUnsure says the learned stance model reads a captured
	// prompt the other way round from its Polarity: the review asks for
	// the direction instead of offering one.
	DirectionUnsure bool `json:"direction_unsure,omitempty"`
}
