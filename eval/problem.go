package eval

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// maxProblems bounds how many problems one dataset validation collects;
// maxListed how many the error message spells out.
const (
	maxProblems = 1000
	maxListed   = 50
)

// Problem is one thing wrong with a dataset, at a 1-based line (0 when it is
// about the file as a whole).
type Problem struct {
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// Format renders the problem as name:LINE: message.
func (p Problem) Format(name string) string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", name, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", name, p.Message)
}

// DatasetError is what ParseDataset and LoadDataset return for a dataset that
// is not valid: every problem found, in line order. It unwraps to an
// *engine.Error with code EINVALID whose message lists the problems one per
// line as name:LINE: problem.
type DatasetError struct {
	Name     string
	Problems []Problem
	err      *engine.Error
}

// Error implements error; it is the text of the wrapped *engine.Error.
func (e *DatasetError) Error() string { return e.err.Error() }

// Unwrap returns the *engine.Error (code EINVALID).
func (e *DatasetError) Unwrap() error { return e.err }

// Problems returns the problems of a DatasetError anywhere in err's chain, or nil.
func Problems(err error) []Problem {
	var d *DatasetError
	if errors.As(err, &d) {
		return d.Problems
	}
	return nil
}

type problems struct {
	list    []Problem
	omitted int
}

func (ps *problems) add(line int, format string, args ...any) {
	if len(ps.list) >= maxProblems {
		ps.omitted++
		return
	}
	ps.list = append(ps.list, Problem{Line: line, Message: fmt.Sprintf(format, args...)})
}

// err returns nil when nothing was found, else a *DatasetError.
func (ps *problems) err(name string) error {
	if len(ps.list) == 0 {
		return nil
	}
	slices.SortStableFunc(ps.list, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	var b strings.Builder
	for i, p := range ps.list {
		if i == maxListed {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Format(name))
	}
	if more := len(ps.list) - maxListed + ps.omitted; more > 0 {
		fmt.Fprintf(&b, "\n%s: … and %d more problems", name, more)
	}
	return &DatasetError{Name: name, Problems: ps.list, err: engine.Errorf(engine.EINVALID, "%s", b.String())}
}
