package store_test

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// The toy driver's rows: what the SQL drivers' statements and triggers do,
// over memState.

// Copies of rows, so that no caller shares a slice with the state.

func cloneScope(s engine.Scope) engine.Scope {
	s.ContextTags, s.ExcludeTags = nilIfEmpty(s.ContextTags), nilIfEmpty(s.ExcludeTags)
	return s
}

func nilIfEmpty(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return slices.Clone(xs)
}

func cloneRule(r engine.Rule) engine.Rule {
	r.Scope = cloneScope(r.Scope)
	r.FirstSeen, r.LastCorrection = r.FirstSeen.UTC(), r.LastCorrection.UTC()
	if r.Stated != nil {
		st := *r.Stated
		st.At = st.At.UTC()
		r.Stated = &st
	}
	return r
}

func cloneEvent(e engine.Event) engine.Event {
	e.Scope, e.At = cloneScope(e.Scope), e.At.UTC()
	if len(e.Candidates) == 0 {
		e.Candidates = nil
	}
	e.Candidates = slices.Clone(e.Candidates)
	if e.Score != nil {
		v := *e.Score
		e.Score = &v
	}
	return e
}

func clonePending(p engine.Pending) engine.Pending {
	p.Scope, p.CreatedAt = cloneScope(p.Scope), p.CreatedAt.UTC()
	p.Candidates = append([]engine.Candidate{}, p.Candidates...)
	for _, t := range []**time.Time{&p.ResolvedAt, &p.LastSeenAt} {
		if *t != nil {
			v := (*t).UTC()
			*t = &v
		}
	}
	if p.Gate != nil {
		v := *p.Gate
		p.Gate = &v
	}
	return p
}

// collect returns the values of m that keep selects, ordered by less.
func collect[K comparable, V any](m map[K]V, keep func(V) bool, less func(a, b V) int) []V {
	out := []V{}
	for _, v := range m {
		if keep(v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, less)
	return out
}

// Reader.

func (r memReader) Rule(id string) (store.RuleRow, bool, error) {
	s, err := r.st()
	if err != nil {
		return store.RuleRow{}, false, err
	}
	x, ok := s.rules[id]
	x.row.Rule = cloneRule(x.row.Rule)
	return x.row, ok, nil
}

func (r memReader) RuleAlias(old string) (string, bool, error) {
	s, err := r.st()
	if err != nil {
		return "", false, err
	}
	id, ok := s.aliases[old]
	return id, ok, nil
}

func (r memReader) RuleAliases() ([]store.RuleAlias, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []store.RuleAlias{}
	for _, old := range slices.Sorted(maps.Keys(s.aliases)) {
		out = append(out, store.RuleAlias{OldID: old, RuleID: s.aliases[old]})
	}
	return out, nil
}

func (r memReader) RuleExists(id string) (bool, error) {
	_, ok, err := r.Rule(id)
	return ok, err
}

func (r memReader) rules(keep func(memRule) bool) ([]engine.Rule, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	rows := collect(s.rules, keep, func(a, b memRule) int { return strings.Compare(a.row.RuleID, b.row.RuleID) })
	out := make([]engine.Rule, len(rows))
	for i, x := range rows {
		out[i] = cloneRule(x.row.Rule)
	}
	return out, nil
}

func (r memReader) Rules(q store.RuleQuery) ([]engine.Rule, error) {
	admits := func(have, want string) bool { return have == "" || have == want }
	out, err := r.rules(func(x memRule) bool {
		rr := x.row.Rule
		return (q.Category == "" || rr.Category == q.Category) && (q.Status == "" || rr.Status == q.Status) &&
			(q.Source == "" || rr.Source == q.Source) && rr.RuleID > q.After &&
			(q.Scope == nil || admits(rr.Scope.Environment, q.Scope.Environment) && admits(rr.Scope.Project, q.Scope.Project) &&
				admits(rr.Scope.AgentFamily, q.Scope.AgentFamily))
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, err
}

func (r memReader) RuleStates() ([]store.RuleState, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []store.RuleState{}
	for _, x := range s.rules {
		w := x.row
		out = append(out, store.RuleState{RuleID: w.RuleID, Status: w.Status, ArchivedBy: w.ArchivedBy, Source: w.Source,
			Registry: w.Registry, DefinitionSHA256: w.DefinitionSHA256, Alpha: w.Alpha, Beta: w.Beta})
	}
	return out, nil
}

func (r memReader) ActiveRules() ([]engine.Rule, error) {
	return r.rules(func(x memRule) bool { return x.row.Status == engine.StatusActiveEligible })
}

func (r memReader) RulesChangedSince(v int64) ([]engine.Rule, error) {
	return r.rules(func(x memRule) bool { return x.version > v })
}

func (r memReader) RulesRemovedSince(v int64) ([]string, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, x := range s.removed {
		if x.version > v {
			out = append(out, x.id)
		}
	}
	return out, nil
}

func (r memReader) Versions() (store.Versions, error) {
	s, err := r.st()
	if err != nil {
		return store.Versions{}, err
	}
	return s.versions, nil
}

func (r memReader) events(keep func(engine.Event) bool) ([]engine.Event, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []engine.Event{}
	for _, e := range s.events {
		if keep(e) {
			out = append(out, cloneEvent(e))
		}
	}
	return out, nil
}

func (r memReader) Events(ruleID string, afterID int64, limit int) ([]engine.Event, error) {
	out, err := r.events(func(e engine.Event) bool { return e.RuleID == ruleID && e.EventID > afterID })
	return out[:min(limit, len(out))], err
}

func (r memReader) Event(id int64) (store.EventRow, bool, error) {
	s, err := r.st()
	if err != nil || id < 1 || id > int64(len(s.events)) {
		return store.EventRow{}, false, err
	}
	return store.EventRow{Event: cloneEvent(s.events[id-1]), RetractedBy: s.retracted[id]}, true, nil
}

func (r memReader) EventsSince(since time.Time, limit int) ([]store.EventRow, error) {
	evs, err := r.events(func(e engine.Event) bool {
		return !e.At.Before(since) && (e.Polarity != 0 || e.EventType == engine.EventViolation ||
			e.EventType == engine.EventCreation && e.UserText != "")
	})
	if err != nil {
		return nil, err
	}
	slices.Reverse(evs)
	out := []store.EventRow{}
	for _, e := range evs[:min(limit, len(evs))] {
		row, _, err := r.Event(e.EventID)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

func (r memReader) CapturesSince(since time.Time, limit int) ([]store.CaptureEntry, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []store.CaptureEntry{}
	for i := len(s.captures) - 1; i >= 0 && len(out) < limit; i-- {
		if !s.captures[i].At.Before(since) {
			out = append(out, s.captures[i])
		}
	}
	return out, nil
}

func (r memReader) CountCaptures(frameID string) (int, error) {
	s, err := r.st()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range s.captures {
		if c.FrameID == frameID && frameID != "" {
			n++
		}
	}
	return n, nil
}

// CounterexampleTags counts the context tags of the rule's counterexamples,
// as the SQL drivers' triggers do as events are appended and moved.
func (r memReader) CounterexampleTags(ruleID string) (map[string]int, error) {
	evs, err := r.events(func(e engine.Event) bool { return e.RuleID == ruleID && e.Polarity == engine.Counter })
	out := map[string]int{}
	for _, e := range evs {
		for _, tag := range e.Scope.ContextTags {
			out[tag]++
		}
	}
	return out, err
}

func (r memReader) ExceptionTags(parentID string) ([]string, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	tags := map[string]bool{}
	for _, x := range s.rules {
		if x.row.ExceptionOf == parentID && x.row.ExceptionTag != "" {
			tags[x.row.ExceptionTag] = true
		}
	}
	for k := range s.rejections {
		if k[0] == parentID {
			tags[k[1]] = true
		}
	}
	return slices.Sorted(maps.Keys(tags)), nil
}

func (r memReader) ConfigRows() ([]store.ConfigRow, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []store.ConfigRow{}
	for _, k := range slices.Sorted(maps.Keys(s.config)) {
		out = append(out, store.ConfigRow{Key: k, Value: s.config[k]})
	}
	return out, nil
}

func (r memReader) Pending(id int64) (engine.Pending, bool, error) {
	s, err := r.st()
	if err != nil || id < 1 || id > int64(len(s.pending)) {
		return engine.Pending{}, false, err
	}
	return clonePending(s.pending[id-1]), true, nil
}

func (r memReader) ListPending(status string, limit int) ([]engine.Pending, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []engine.Pending{}
	for _, p := range s.pending {
		if len(out) < limit && (status == "" || p.Status == status) {
			out = append(out, clonePending(p))
		}
	}
	return out, nil
}

func (r memReader) IdempotencyKey(key string) (store.IdempotencyRow, bool, error) {
	s, err := r.st()
	if err != nil {
		return store.IdempotencyRow{}, false, err
	}
	k, ok := s.idem[key]
	return k.row, ok, nil
}

func byRuleAndSHA(a, b store.RuleText) int {
	return cmp.Or(strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.SHA256, b.SHA256))
}

func (r memReader) RuleTexts(ruleID string) ([]store.RuleText, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	return collect(s.texts, func(x store.RuleText) bool { return x.RuleID == ruleID }, func(a, b store.RuleText) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.SHA256, b.SHA256))
	}), nil
}

// live reports whether rule id exists and is not archived.
func (s *memState) live(id string) bool {
	x, ok := s.rules[id]
	return ok && x.row.Status != engine.StatusArchived
}

func (r memReader) liveTexts(keep func(*memState, store.RuleText) bool) ([]store.RuleText, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	return collect(s.texts, func(x store.RuleText) bool { return s.live(x.RuleID) && keep(s, x) }, byRuleAndSHA), nil
}

func (r memReader) LiveRuleTexts() ([]store.RuleText, error) {
	return r.liveTexts(func(*memState, store.RuleText) bool { return true })
}

func (r memReader) CountLiveRuleTexts() (int, error) {
	xs, err := r.LiveRuleTexts()
	return len(xs), err
}

func (r memReader) TextsWithoutEmbedding(modelID string) ([]store.RuleText, error) {
	return r.liveTexts(func(s *memState, x store.RuleText) bool {
		_, ok := s.vectors[[3]string{x.RuleID, modelID, x.SHA256}]
		return !ok
	})
}

func (r memReader) EmbeddingDims(modelID string) (int, error) {
	s, err := r.st()
	if err != nil {
		return 0, err
	}
	for k, v := range s.vectors {
		if k[1] == modelID {
			return len(v), nil
		}
	}
	return 0, nil
}

func (r memReader) Embeddings(modelID string) ([]store.StoredEmbedding, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	out := []store.StoredEmbedding{}
	for k, v := range s.vectors {
		if x, ok := s.texts[[2]string{k[0], k[2]}]; ok && k[1] == modelID && s.live(k[0]) {
			out = append(out, store.StoredEmbedding{RuleID: k[0], Kind: x.Kind, SHA256: k[2], Vector: slices.Clone(v)})
		}
	}
	slices.SortFunc(out, func(a, b store.StoredEmbedding) int {
		return cmp.Or(strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.SHA256, b.SHA256))
	})
	return out, nil
}

func (r memReader) RegistryFiles() ([]store.RegistryFile, error) {
	s, err := r.st()
	if err != nil {
		return nil, err
	}
	return collect(s.registries, func(store.RegistryFile) bool { return true },
		func(a, b store.RegistryFile) int { return strings.Compare(a.Name, b.Name) }), nil
}

func (r memReader) Stats() (store.Stats, error) {
	s, err := r.st()
	if err != nil {
		return store.Stats{}, err
	}
	return store.Stats{Rules: int64(len(s.rules)), Events: int64(len(s.events)), Texts: int64(len(s.texts)),
		Embeddings: int64(len(s.vectors)), IdempotencyKeys: int64(len(s.idem)), Pending: int64(len(s.pending)),
		Config: int64(len(s.config))}, nil
}
