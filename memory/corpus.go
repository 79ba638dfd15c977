package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// Corpus returns the classifier's read-only view of the service's store
// (see corpus), for front ends that run a classifier of their own (the
// offline evaluation).
func (s *Service) Corpus() classifier.Corpus { return corpus{s.db} }

// corpus is the classifier's read-only view of the store: the stored
// vectors, the scopes and texts of the rules that are not archived, the
// accepted confirmations (learned exemplars, see corpus_learned.go), and a
// version that moves whenever any of them changes.
type corpus struct{ db *store.DB }

// Version is the store's embeddings version with the number of learned
// exemplars folded in, so it moves when either does.
func (c corpus) Version(ctx context.Context, maxAge time.Duration) (int64, error) {
	v, err := c.db.EmbeddingsVersionWithin(ctx, maxAge)
	if err != nil {
		return 0, err
	}
	learned, err := c.Learned(ctx)
	if err != nil {
		return 0, err
	}
	return v*learnedVersionSpan + int64(min(len(learned), learnedVersionSpan-1)), nil
}

func (c corpus) Vectors(ctx context.Context, model string) ([]classifier.Vector, error) {
	rows, err := c.db.LoadEmbeddings(ctx, model)
	if err != nil {
		return nil, err
	}
	out := make([]classifier.Vector, len(rows))
	for i, r := range rows {
		out[i] = classifier.Vector{RuleID: r.RuleID, Affirms: affirms(r.Kind), Vector: r.Vector}
	}
	return out, nil
}

func (c corpus) Rules(ctx context.Context) (map[string]engine.Scope, error) {
	rules, err := c.db.ListRules(ctx, store.RuleFilter{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]engine.Scope, len(rules))
	for _, r := range rules {
		if r.Status != engine.StatusArchived {
			out[r.RuleID] = r.Scope
		}
	}
	return out, nil
}

func (c corpus) Texts(ctx context.Context) ([]classifier.Text, error) {
	live, err := c.Rules(ctx)
	if err != nil {
		return nil, err
	}
	texts, err := c.db.LoadRuleTexts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]classifier.Text, 0, len(texts))
	for _, t := range texts {
		if _, ok := live[t.RuleID]; ok {
			out = append(out, classifier.Text{RuleID: t.RuleID, Text: t.Text, Contrary: t.Kind == store.KindContrary, Merged: t.Kind == store.KindCorrection, Template: t.Kind == store.KindTemplate})
		}
	}
	return out, nil
}

func (c corpus) RuleID(ctx context.Context, id string) (string, bool, error) {
	r, err := followRename(ctx, c.db, id, func(id string) (engine.Rule, error) { return c.db.GetRule(ctx, id) })
	if engine.ErrorCode(err) == engine.ENOTFOUND {
		return "", false, nil
	}
	return r.RuleID, err == nil, err
}

// Sides are the sides (prefer:, avoid:) of every rule of the registries in
// force, as the registry gives them or derives them from the template; the
// classifier derives those of other rules (a user's, a candidate) itself.
func (c corpus) Sides(ctx context.Context) (map[string]engine.Sides, error) {
	reg, err := InForce(ctx, c.db)
	if err != nil {
		return nil, err
	}
	out := make(map[string]engine.Sides, reg.Len())
	for _, d := range reg.Definitions() {
		out[d.Rule.RuleID] = reg.Sides(d.Rule.RuleID)
	}
	return out, nil
}
