package registry

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// MaxProblems bounds how many problems one validation collects; the rest are
// counted in ValidationError.Omitted. maxListed bounds how many of them the
// error message spells out (the full list stays in Problems).
const (
	MaxProblems = 1000
	maxListed   = 100
)

// Problem is one thing wrong with a registry file, at a 1-based line and
// column (0 when the position is not known, e.g. for a truncated file).
type Problem struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// Format renders the problem the way compilers do: name:LINE:COL: message,
// leaving out the parts that are not known.
func (p Problem) Format(name string) string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", name, p.Line, p.Column, p.Message)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", name, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", name, p.Message)
}

// ValidationError is what Parse and Load return for a registry that is not
// valid: every problem found, in file order. It unwraps to an *engine.Error
// with code EINVALID whose message lists the problems one per line as
// name:LINE:COL: problem, so engine.ErrorCode and engine.ErrorMessage work on
// it unchanged; front ends that want the list use errors.As or Problems.
type ValidationError struct {
	Name     string    // the registry's name as given to Parse (a path for Load)
	Problems []Problem // at most MaxProblems, in file order
	Omitted  int       // problems found beyond MaxProblems
	err      *engine.Error
}

// Error implements error; it is the text of the wrapped *engine.Error.
func (e *ValidationError) Error() string { return e.err.Error() }

// Unwrap returns the *engine.Error (code EINVALID) the problems were rendered into.
func (e *ValidationError) Unwrap() error { return e.err }

// Problems returns the problems of a registry ValidationError anywhere in
// err's chain, or nil.
func Problems(err error) []Problem {
	var v *ValidationError
	if errors.As(err, &v) {
		return v.Problems
	}
	return nil
}

// problems collects the problems of one file.
type problems struct {
	list    []Problem
	omitted int
}

func (ps *problems) add(line, col int, format string, args ...any) {
	if len(ps.list) >= MaxProblems {
		ps.omitted++
		return
	}
	ps.list = append(ps.list, Problem{Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// err returns nil when nothing was found, else a *ValidationError.
func (ps *problems) err(name string) error {
	if len(ps.list) == 0 {
		return nil
	}
	slices.SortStableFunc(ps.list, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
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
	return &ValidationError{Name: name, Problems: ps.list, Omitted: ps.omitted,
		err: engine.Errorf(engine.EINVALID, "%s", b.String())}
}
