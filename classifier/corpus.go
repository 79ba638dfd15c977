package classifier

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// Corpus is what the classifier scores against, read-only: the stored
// vectors of every rule's texts for a model, the rules' scopes and texts,
// the corrections users confirmed (learned exemplars), and a version that moves whenever any of them changes. The use-case layer
// implements it over the store; the classifier never writes.
type Corpus interface {
	// Version returns the corpus version; a value read less than maxAge ago
	// may be returned without asking the store again.
	Version(ctx context.Context, maxAge time.Duration) (int64, error)
	// Vectors returns every stored vector of model.
	Vectors(ctx context.Context, model string) ([]Vector, error)
	// Rules returns the scope of every rule that is not archived, by id.
	Rules(ctx context.Context) (map[string]engine.Scope, error)
	// Texts returns every rule's texts (for the rule-vocabulary score).
	Texts(ctx context.Context) ([]Text, error)
	// RuleID returns the id of the rule id names (any status): id itself,
	// or the rule it was renamed or merged into since; found is false when
	// it names none.
	RuleID(ctx context.Context, id string) (current string, found bool, err error)
	// Learned returns the corrections users confirmed as being about a
	// rule, oldest first (see Learned); the classifier keeps the latest
	// MaxLearnedPerRule of each rule and polarity, of rules Rules lists.
	// Version must move when this list does.
	Learned(ctx context.Context) ([]Learned, error)
}

// Vector is one stored vector of a rule's text. Affirms is false for a
// contrary text (one that says the opposite of its rule).
type Vector struct {
	RuleID  string
	Affirms bool
	Vector  []float32
}

// Text is one text of a rule. Contrary is true for a contrary phrasing (one
// that says the opposite of its rule); Merged for a correction merged into
// the rule (a user's words, often a complaint about what the agent did,
// rather than the rule's own phrasing).
type Text struct {
	RuleID   string
	Text     string
	Contrary bool
	Merged   bool
	// Template is true for the rule's own text (what DeriveSides reads).
	Template bool
}
