package eval

import "github.com/lexsona/lexsona/engine"

// maxProblems bounds how many problems one dataset validation collects;
// maxListed how many the error message spells out.
const (
	maxProblems = 1000
	maxListed   = 50
)

// Problem is one thing wrong with a dataset, at a 1-based line (0 when it is
// about the file as a whole).
type Problem = engine.Problem

// DatasetError is what ParseDataset and LoadDataset return for a dataset that
// is not valid: every problem found, in line order (see engine.ValidationError).
type DatasetError = engine.ValidationError

// Problems returns the problems of a DatasetError anywhere in err's chain, or nil.
func Problems(err error) []Problem { return engine.ProblemsOf(err) }

// problems collects the problems of one dataset file.
type problems struct{ engine.Problems }

func (ps *problems) add(line int, format string, args ...any) {
	ps.Max, ps.Listed = maxProblems, maxListed
	ps.Add(line, 0, format, args...)
}

func (ps *problems) err(name string) error { return ps.Err(name) }
