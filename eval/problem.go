package eval

// maxProblems bounds how many problems one dataset validation collects
// (engine.Problems; the rest are counted); maxListed how many the error
// message spells out.
const (
	maxProblems = 1000
	maxListed   = 50
)
