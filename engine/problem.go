package engine

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Problem is one thing wrong with an input file (a registry, a dataset), at a
// 1-based line and column (0 when not known).
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

// ValidationError is every problem found in one input file, in file order.
// It unwraps to an *Error with code EINVALID whose message lists the problems
// one per line as name:LINE:COL: problem, so ErrorCode and ErrorMessage work
// on it unchanged; front ends that want the list use ProblemsOf.
type ValidationError struct {
	Name     string    // the file's name as given (a path, "default", "request")
	Problems []Problem // at most the collector's limit, in file order
	Omitted  int       // problems found beyond that limit
	err      *Error
}

// Error implements error; it is the text of the wrapped *Error.
func (e *ValidationError) Error() string { return e.err.Error() }

// Unwrap returns the *Error (code EINVALID) the problems were rendered into.
func (e *ValidationError) Unwrap() error { return e.err }

// ProblemsOf returns the problems of a ValidationError anywhere in err's
// chain, or nil.
func ProblemsOf(err error) []Problem {
	var v *ValidationError
	if errors.As(err, &v) {
		return v.Problems
	}
	return nil
}

// Problems collects the problems of one file: at most Max (the rest are
// counted), of which the error message spells out the first Listed.
type Problems struct {
	Max, Listed int
	list        []Problem
	omitted     int
}

// Add records a problem at line and column (0 when not known).
func (ps *Problems) Add(line, col int, format string, args ...any) {
	if ps.Max > 0 && len(ps.list) >= ps.Max {
		ps.omitted++
		return
	}
	ps.list = append(ps.list, Problem{Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// Len is the number of problems recorded, omitted ones included.
func (ps *Problems) Len() int { return len(ps.list) + ps.omitted }

// Err returns nil when nothing was found, else a *ValidationError for name
// with the problems sorted by position.
func (ps *Problems) Err(name string) error {
	if len(ps.list) == 0 {
		return nil
	}
	slices.SortStableFunc(ps.list, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	listed := ps.Listed
	if listed <= 0 {
		listed = len(ps.list)
	}
	var b strings.Builder
	for i, p := range ps.list {
		if i == listed {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Format(name))
	}
	if more := len(ps.list) - listed + ps.omitted; more > 0 {
		fmt.Fprintf(&b, "\n%s: … and %d more problems", name, more)
	}
	return &ValidationError{Name: name, Problems: ps.list, Omitted: ps.omitted,
		err: Errorf(EINVALID, "%s", b.String())}
}
