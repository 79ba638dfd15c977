package memory

import (
	"context"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// Classify classifies a correction made in scope without writing anything
// (classifier.Classify). Errors: the classifier's.
func (s *Service) Classify(ctx context.Context, text string, scope engine.Scope) (classifier.Result, error) {
	res, err := s.clf.Classify(ctx, text, scope)
	if err != nil {
		return res, err
	}
	if res.Candidates == nil {
		res.Candidates = []engine.Candidate{}
	}
	return res, nil
}
