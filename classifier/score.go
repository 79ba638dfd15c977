package classifier

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// snapshot is the index built from one corpus version: dense and lex
// (hybrid only) hold the vectors of the texts that affirm each rule
// (template, examples, corrections, affirming learned exemplars), contra and
// lexContra those of its contrary texts (and contrary learned exemplars);
// all four hold the same rules in the same order (ids).
type snapshot struct {
	version           int64
	model, lexModel   string
	ids               []string
	dense, lex        *Index
	contra, lexContra *Index
	terms             *termIndex // nil unless the term weight is set
	lean              *leanModel // nil when no rule has contrary texts
	near              *neighbours
	prefs             preferences
	sides             map[string]engine.Sides // every rule's, given or derived
	err               error                   // no embeddings for the model although rules have texts
}

// versionMaxAge is how long a classifier trusts the embeddings version it
// read, when its own process wrote nothing since: changes by another process
// (a `lexsona registry sync` beside a running server) reach it within this.
const versionMaxAge = 500 * time.Millisecond

// fresh reports whether s is the snapshot of embeddings version v for the
// given model identities.
func (s *snapshot) fresh(v int64, model, lexModel string) bool {
	return s != nil && s.version >= v && s.model == model && s.lexModel == lexModel
}

// pending is the snapshot a classification will score against: found at
// once, or (ch non-nil) being rebuilt in parallel with the embedding.
type pending struct {
	s   *snapshot
	err error
	ch  chan pending
}

// wait returns the snapshot, waiting for its rebuild if one runs; a snapshot
// whose model has no embeddings yet gives its error.
func (p *pending) wait() (*snapshot, error) {
	if p.ch != nil {
		*p = <-p.ch
	}
	if p.err != nil {
		return nil, p.err
	}
	return p.s, p.s.err
}

// current starts finding the snapshot for the store's current embeddings
// version and the given model identities. In the common case — the version
// known without a query (see store.DB.EmbeddingsVersionWithin) and the
// snapshot already built for it — that is two atomic loads and no goroutine.
// Otherwise the version is read (one small query) and, when it moved, the
// snapshot is rebuilt in a goroutine while the caller embeds. Concurrent
// callers share one rebuild; readers never block on it once a snapshot exists
// for the current version. A version read error is returned by wait, so that
// an embedding error is still reported first.
func (c *Classifier) current(ctx context.Context, model, lexModel string) pending {
	v, err := c.corpus.Version(ctx, versionMaxAge)
	if err != nil {
		return pending{err: err}
	}
	if s := c.snap.Load(); s.fresh(v, model, lexModel) {
		return pending{s: s}
	}
	ch := make(chan pending, 1)
	go func() {
		s, err := c.rebuild(ctx, v, model, lexModel)
		ch <- pending{s: s, err: err}
	}()
	return pending{ch: ch}
}

// rebuild builds and installs the snapshot of version v unless another
// caller did meanwhile.
func (c *Classifier) rebuild(ctx context.Context, v int64, model, lexModel string) (*snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s := c.snap.Load(); s.fresh(v, model, lexModel) {
		return s, nil
	}
	s, err := c.build(ctx, v, model, lexModel)
	if err != nil {
		return nil, err
	}
	c.snap.Store(s)
	return s, nil
}

// build loads the vectors of model (and lexModel), the learned exemplars and
// the rules' scopes.
func (c *Classifier) build(ctx context.Context, version int64, model, lexModel string) (*snapshot, error) {
	s := &snapshot{version: version, model: model, lexModel: lexModel}
	dense, err := c.corpus.Vectors(ctx, model)
	if err != nil {
		return nil, err
	}
	var lex []Vector
	if lexModel != "" {
		if lex, err = c.corpus.Vectors(ctx, lexModel); err != nil {
			return nil, err
		}
	}
	scopes, err := c.corpus.Rules(ctx)
	if err != nil {
		return nil, err
	}
	stored := [2]int{len(dense), len(lex)}
	live := func(id string) bool { _, ok := scopes[id]; return ok }
	if err := c.addLearned(ctx, &dense, &lex, live); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, rows := range [][]Vector{dense, lex} {
		for _, e := range rows {
			set[e.RuleID] = true
		}
	}
	for id := range set {
		s.ids = append(s.ids, id)
	}
	slices.Sort(s.ids)
	dd := dims(dense, c.emb.Identity().Dims)
	affirmRows, contraRows := toRows(dense, true), toRows(dense, false)
	s.dense, s.contra = NewIndex(dd, s.ids, affirmRows, scopes), NewIndex(dd, s.ids, contraRows, scopes)
	s.lean = newLeanModel(dd, s.ids, affirmRows, contraRows)
	s.near = newNeighbours(s.dense, s.contra)
	if lexModel != "" {
		ld := dims(lex, c.opts.Lexical.Identity().Dims)
		s.lex, s.lexContra = NewIndex(ld, s.ids, toRows(lex, true), scopes), NewIndex(ld, s.ids, toRows(lex, false), scopes)
	}
	var texts []Text
	if c.termW > 0 || !c.polarity.Off || stored[0] == 0 || (lexModel != "" && stored[1] == 0) {
		if texts, err = c.corpus.Texts(ctx); err != nil {
			return nil, err
		}
	}
	if c.termW > 0 {
		s.terms = newTermIndex(s.ids, texts)
	}
	if !c.polarity.Off {
		s.prefs = newPreferences(texts)
		if s.sides, err = rulesSides(ctx, c.corpus, texts); err != nil {
			return nil, err
		}
	}
	for _, m := range []struct {
		model  string
		stored int
	}{{model, stored[0]}, {lexModel, stored[1]}} {
		if m.model == "" || m.stored > 0 {
			continue
		}
		if n := len(texts); n > 0 {
			s.err = engine.Errorf(engine.EUNAVAILABLE, "the store's %d rule texts have no embeddings for model %s yet: run `lexsona registry sync` with this embedder", n, m.model)
		}
	}
	return s, nil
}

// dims is the vector length of an index: the model's when it says, else the
// first stored vector's.
func dims(rows []Vector, modelDims int) int {
	if modelDims > 0 || len(rows) == 0 {
		return modelDims
	}
	return len(rows[0].Vector)
}

// toRows returns the rows of the texts that affirm their rule (affirm) or of
// the contrary ones.
func toRows(es []Vector, affirm bool) []Row {
	rows := make([]Row, 0, len(es))
	for _, e := range es {
		if e.Affirms == affirm {
			rows = append(rows, Row{RuleID: e.RuleID, Vector: e.Vector})
		}
	}
	return rows
}

// score fills cl's candidates, score, top clause, evidence, sides and
// nearness from reading r against snapshot s.
func (c *Classifier) score(s *snapshot, cl *classified, r *Reading) {
	cl.input, cl.vec, cl.lexVec, cl.lexID = r.input, r.q, r.lexQ, r.lexModel
	if cl.vec.dense == nil && cl.vec.sparse.Dims == 0 {
		cl.vec = query{dense: r.Vector}
	}
	affirm, contrary := s.ruleScores(cl, 1-c.opts.LexicalWeight)
	// A rule's similarity is the better of the two: a text that contradicts
	// a rule is about that rule as much as one that insists on it.
	scores := make([]float64, len(affirm))
	for i := range affirm {
		scores[i] = affirm[i]
		if !math.IsNaN(contrary[i]) {
			scores[i] = max(affirm[i], contrary[i])
		}
	}
	if s.terms != nil {
		term := make([]float64, len(scores))
		r.Whole.terms(s, term)
		boost := 0.0
		if r.Whole.Addressed {
			boost = AddressedBoost
		}
		for i := range scores {
			scores[i] = min(1, (1-c.termW)*scores[i]+c.termW*term[i]+boost)
		}
	}
	won := c.clauseScores(s, r, scores)
	for _, v := range scores {
		if v > cl.best[0] {
			cl.best[0], cl.best[1] = v, cl.best[0]
		} else if v > cl.best[1] {
			cl.best[1] = v
		}
	}
	floor := min(c.opts.MinScore, cl.Thresholds.Confirm)
	if cl.capture && c.opts.CaptureFloor != nil {
		floor = *c.opts.CaptureFloor
	}
	cl.Candidates = TopK(s.ids, scores, c.opts.K, floor, func(i int) bool { return ScopeApplies(s.dense.scopes[i], cl.scope) })
	cl.stance = &r.Whole
	if len(cl.Candidates) > 0 {
		cl.Score = cl.Candidates[0].Score
		top := cl.Candidates[0].RuleID
		i := s.dense.pos[top]
		// The clause that carries the top rule is what its stance is read
		// from.
		if k, ok := won[i]; ok {
			cl.stance, cl.clauseWon = &r.Clauses[k], true
			cl.Clause = r.Clauses[k].text
		}
		cl.evidence = evidence{affirm: affirm[i], contrary: contrary[i], lean: s.lean.lean(cl.vec.vector(), i), reversal: r.reversal(top)}
		cl.sides = s.sides[top]
		if c.guard.NeighbourMargin > 0 && cl.Thresholds.Band(cl.Score) == DecisionAutoMatch {
			cl.near = s.near.near(cl.vec.dense, top, cl.scope)
		}
	}
}

// ruleScores returns each rule's best score (in ids order) over its
// affirming texts and over its contrary texts (NaN for a rule without any),
// dense, or w·dense + (1−w)·lexical for hybrid scoring.
func (s *snapshot) ruleScores(cl *classified, w float64) (affirm, contrary []float64) {
	affirm = s.dense.ruleScoresQuery(cl.vec, nil)
	contrary = s.contra.ruleScoresQuery(cl.vec, nil)
	if s.lex != nil {
		la := s.lex.ruleScoresQuery(cl.lexVec, nil)
		lc := s.lexContra.ruleScoresQuery(cl.lexVec, nil)
		for i := range affirm {
			affirm[i] = w*affirm[i] + (1-w)*la[i]
			contrary[i] = w*contrary[i] + (1-w)*lc[i]
		}
	}
	for i := range contrary {
		if !s.contra.hasRows(i) && (s.lexContra == nil || !s.lexContra.hasRows(i)) {
			contrary[i] = math.NaN()
		}
	}
	return affirm, contrary
}

// embedOne embeds one text and checks the embedder kept its contract.
func embedOne(ctx context.Context, emb interface {
	Embed(context.Context, []string) ([][]float32, error)
}, text string) ([]float32, error) {
	vs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 || len(vs[0]) == 0 {
		return nil, engine.Errorf(engine.EINTERNAL, "embedder returned %d vectors for one text", len(vs))
	}
	return vs[0], nil
}
