package store_test

import (
	"maps"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// The toy driver's writes (store.DriverTx) on its transaction's copy of
// the state, with what the SQL drivers' triggers keep: the change
// counters, the row versions, the removed rule ids, cascades on renames
// and deletes.

// putRule writes a rule row stamped with the next rules version; the
// embeddings version moves too when the rule's status, id or scope
// changed (or it is new).
func (t memTx) putRule(old *store.RuleRow, row store.RuleRow) {
	s := t.s()
	s.versions.Rules++
	if old == nil || old.RuleID != row.RuleID || old.Status != row.Status || old.Scope.Environment != row.Scope.Environment ||
		old.Scope.Project != row.Scope.Project || old.Scope.AgentFamily != row.Scope.AgentFamily {
		s.versions.Embeddings++
	}
	row.Rule = cloneRule(row.Rule)
	row.Rule.Registry = row.Registry // one column: the row's
	s.rules[row.RuleID] = memRule{row: row, version: s.versions.Rules}
}

// update changes rule id with edit; found is false when there is none.
func (t memTx) update(id string, edit func(*store.RuleRow)) (bool, error) {
	s, err := t.st()
	if err != nil {
		return false, err
	}
	x, ok := s.rules[id]
	if !ok {
		return false, nil
	}
	row := x.row
	edit(&row)
	t.putRule(&x.row, row)
	return true, nil
}

func (t memTx) InsertRule(row store.RuleRow, _ time.Time) error {
	if _, err := t.st(); err != nil {
		return err
	}
	t.putRule(nil, row)
	return nil
}

func (t memTx) UpdateRule(row store.RuleRow, _ time.Time) (bool, error) {
	return t.update(row.RuleID, func(w *store.RuleRow) { *w = row })
}

func (t memTx) UpdateEvidence(r engine.Rule, _ time.Time) error {
	_, err := t.update(r.RuleID, func(w *store.RuleRow) {
		w.Alpha, w.Beta, w.Reinforcements, w.CounterExamples = r.Alpha, r.Beta, r.Reinforcements, r.CounterExamples
		w.FirstSeen, w.LastCorrection, w.Stated = r.FirstSeen, r.LastCorrection, r.Stated
	})
	return err
}

func (t memTx) SetStatus(id string, status engine.Status, archivedBy string, _ time.Time) error {
	_, err := t.update(id, func(w *store.RuleRow) { w.Status, w.ArchivedBy = status, archivedBy })
	return err
}

// removeRule forgets rule id's row, noting its id as removed.
func (t memTx) removeRule(id string) {
	s := t.s()
	delete(s.rules, id)
	s.versions.Rules++
	s.versions.Embeddings++
	s.removed = append(s.removed, memRemoved{id: id, version: s.versions.Rules})
}

// RenameRule moves the rule and every row naming it (ON UPDATE CASCADE).
func (t memTx) RenameRule(from, to string) error {
	s, err := t.st()
	if err != nil {
		return err
	}
	x := s.rules[from]
	t.removeRule(from)
	x.row.RuleID = to
	t.putRule(nil, x.row)
	t.reattribute(from, to, true)
	return nil
}

// reattribute gives from's events, texts, vectors, exception links,
// rejections and aliases to to; texts and vectors too when all (a rename), else only
// the vectors to has none of (a merge: from's texts are deleted with it).
func (t memTx) reattribute(from, to string, all bool) {
	s := t.s()
	for i := range s.events {
		if s.events[i].RuleID == from {
			s.events[i].RuleID = to
		}
	}
	for k, x := range maps.Clone(s.texts) {
		if all && k[0] == from {
			delete(s.texts, k)
			x.RuleID = to
			s.texts[[2]string{to, k[1]}] = x
		}
	}
	for k, v := range maps.Clone(s.vectors) {
		moved := [3]string{to, k[1], k[2]}
		if _, taken := s.vectors[moved]; k[0] == from && (all || !taken) {
			delete(s.vectors, k)
			s.vectors[moved] = v
			s.versions.Embeddings++
		}
	}
	for _, x := range s.rules {
		if x.row.ExceptionOf == from {
			row := x.row
			row.ExceptionOf = to
			t.putRule(&x.row, row)
		}
	}
	for old, id := range s.aliases {
		if id == from {
			s.aliases[old] = to
		}
	}
	for k := range maps.Clone(s.rejections) {
		if k[0] == from {
			if all {
				delete(s.rejections, k)
			}
			s.rejections[[2]string{to, k[1]}] = true
		}
	}
}

// DeleteRule deletes a rule with its texts, vectors, rejections and
// aliases; its exceptions lose their link (ON DELETE SET NULL).
func (t memTx) DeleteRule(id string) error {
	s, err := t.st()
	if err != nil {
		return err
	}
	t.removeRule(id)
	for k := range maps.Clone(s.texts) {
		if k[0] == id {
			_ = t.DeleteRuleText(id, k[1])
		}
	}
	for k := range maps.Clone(s.rejections) {
		if k[0] == id {
			delete(s.rejections, k)
		}
	}
	for old, to := range maps.Clone(s.aliases) {
		if to == id {
			delete(s.aliases, old)
		}
	}
	for _, x := range s.rules {
		if x.row.ExceptionOf == id {
			row := x.row
			row.ExceptionOf = ""
			t.putRule(&x.row, row)
		}
	}
	return nil
}

func (t memTx) PutRuleAlias(old, ruleID string, _ time.Time) error {
	s, err := t.st()
	if err != nil {
		return err
	}
	s.aliases[old] = ruleID
	return nil
}

func (t memTx) DeleteRuleAlias(old string) error {
	s, err := t.st()
	if err != nil {
		return err
	}
	delete(s.aliases, old)
	return nil
}

func (t memTx) MoveRuleRows(from, into string) error {
	if _, err := t.st(); err != nil {
		return err
	}
	t.reattribute(from, into, false)
	return nil
}

func (t memTx) InsertEvent(ev *engine.Event) (int64, error) {
	s, err := t.st()
	if err != nil {
		return 0, err
	}
	ev.EventID = int64(len(s.events)) + 1
	s.events = append(s.events, cloneEvent(*ev))
	return ev.EventID, nil
}

func (t memTx) InsertRetraction(id, by int64, _ time.Time) error {
	s, err := t.st()
	if err == nil {
		s.retracted[id] = by
	}
	return err
}

func (t memTx) InsertCapture(e store.CaptureEntry) error {
	s, err := t.st()
	if err != nil {
		return err
	}
	s.nextID++
	e.ID, e.At = s.nextID, e.At.UTC()
	s.captures = append(s.captures, e)
	return nil
}

func (t memTx) PruneCaptures(keep int) error {
	s, err := t.st()
	if err == nil && len(s.captures) > keep {
		s.captures = append([]store.CaptureEntry{}, s.captures[len(s.captures)-keep:]...)
	}
	return err
}

func (t memTx) PutRejection(parentID, tag string, _ time.Time) error {
	s, err := t.st()
	if err == nil {
		s.rejections[[2]string{parentID, tag}] = true
	}
	return err
}

func (t memTx) DeleteRejection(parentID, tag string) error {
	s, err := t.st()
	if err == nil {
		delete(s.rejections, [2]string{parentID, tag})
	}
	return err
}

func (t memTx) InsertRuleText(x store.RuleText, _ time.Time) (bool, error) {
	s, err := t.st()
	if err != nil {
		return false, err
	}
	k := [2]string{x.RuleID, x.SHA256}
	if _, ok := s.texts[k]; ok {
		return false, nil
	}
	s.texts[k] = x
	s.versions.Embeddings++
	return true, nil
}

func (t memTx) SetRuleTextKind(ruleID, sha256, kind string) error {
	s, err := t.st()
	if x, ok := s.texts[[2]string{ruleID, sha256}]; err == nil && ok {
		x.Kind = kind
		s.texts[[2]string{ruleID, sha256}] = x
		s.versions.Embeddings++
	}
	return err
}

func (t memTx) DeleteRuleText(ruleID, sha256 string) error {
	s, err := t.st()
	if err != nil {
		return err
	}
	delete(s.texts, [2]string{ruleID, sha256})
	for k := range maps.Clone(s.vectors) {
		if k[0] == ruleID && k[2] == sha256 {
			delete(s.vectors, k)
		}
	}
	s.versions.Embeddings++
	return nil
}

func (t memTx) PutEmbedding(modelID string, e store.StoredEmbedding, _ time.Time) error {
	s, err := t.st()
	if _, ok := s.texts[[2]string{e.RuleID, e.SHA256}]; err == nil && ok {
		s.vectors[[3]string{e.RuleID, modelID, e.SHA256}] = append([]float32{}, e.Vector...)
		s.versions.Embeddings++
	}
	return err
}

func (t memTx) DeleteEmbeddingsLike(prefix, keep string) (int64, error) {
	s, err := t.st()
	if err != nil {
		return 0, err
	}
	var n int64
	for k := range maps.Clone(s.vectors) {
		if strings.HasPrefix(k[1], prefix) && k[1] != keep {
			delete(s.vectors, k)
			n++
		}
	}
	if n > 0 {
		s.versions.Embeddings++
	}
	return n, nil
}

func (t memTx) InsertPending(p engine.Pending) (int64, error) {
	s, err := t.st()
	if err != nil {
		return 0, err
	}
	p = clonePending(p)
	p.ID, p.Status, p.RuleID, p.ResolvedAt, p.Seen, p.LastSeenAt = int64(len(s.pending))+1, engine.PendingOpen, "", nil, 1, nil
	s.pending = append(s.pending, p)
	return p.ID, nil
}

// pendingOpen returns confirmation id when it is open.
func (t memTx) pendingOpen(id int64) (*engine.Pending, error) {
	s, err := t.st()
	if err != nil || id < 1 || id > int64(len(s.pending)) || s.pending[id-1].Status != engine.PendingOpen {
		return nil, err
	}
	return &s.pending[id-1], nil
}

func (t memTx) SeePending(id int64, gate float64, at time.Time) (bool, error) {
	p, err := t.pendingOpen(id)
	if p == nil {
		return false, err
	}
	at = at.UTC()
	p.Seen, p.LastSeenAt = p.Seen+1, &at
	if p.Gate == nil || *p.Gate < gate {
		p.Gate = &gate
	}
	return true, nil
}

func (t memTx) ResolvePending(id int64, status, ruleID string, at time.Time) (bool, error) {
	p, err := t.pendingOpen(id)
	if p == nil {
		return false, err
	}
	at = at.UTC()
	p.Status, p.RuleID, p.ResolvedAt = status, ruleID, &at
	return true, nil
}

func (t memTx) InsertIdempotencyKey(key string, row store.IdempotencyRow, at time.Time) error {
	s, err := t.st()
	if err == nil {
		s.idem[key] = memKey{row: row, at: at}
	}
	return err
}

func (t memTx) PruneIdempotencyKeys(before, _ time.Time) (int64, error) {
	s, err := t.st()
	if err != nil {
		return 0, err
	}
	var n int64
	for k, v := range maps.Clone(s.idem) {
		if v.at.Before(before) {
			delete(s.idem, k)
			n++
		}
	}
	return n, nil
}

func (t memTx) PutConfig(key, value string, _ time.Time) error {
	s, err := t.st()
	if err == nil {
		s.config[key] = value
		s.versions.Config++
	}
	return err
}

func (t memTx) DeleteConfig(key string) error {
	s, err := t.st()
	if _, ok := s.config[key]; err == nil && ok {
		delete(s.config, key)
		s.versions.Config++
	}
	return err
}

func (t memTx) PutRegistryFile(f store.RegistryFile) error {
	s, err := t.st()
	if old, ok := s.registries[f.Name]; err == nil && (!ok || old.SHA256 != f.SHA256) {
		f.SyncedAt = f.SyncedAt.UTC()
		s.registries[f.Name] = f
	}
	return err
}
