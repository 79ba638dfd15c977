package registry

import "github.com/lexsona/lexsona/engine"

// MaxProblems bounds how many problems one validation collects; the rest are
// counted in ValidationError.Omitted. maxListed bounds how many of them the
// error message spells out (the full list stays in Problems).
const (
	MaxProblems = 1000
	maxListed   = 100
)

// Problem is one thing wrong with a registry file, at a 1-based line and column.
type Problem = engine.Problem

// ValidationError is what Parse and Load return for a registry that is not
// valid: every problem found, in file order (see engine.ValidationError).
type ValidationError = engine.ValidationError

// Problems returns the problems of a ValidationError anywhere in err's chain, or nil.
func Problems(err error) []Problem { return engine.ProblemsOf(err) }
