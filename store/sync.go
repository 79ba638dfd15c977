package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// SyncResult lists the rule ids a registry sync added, updated (definition
// changed, or restored after leaving the registry) and archived.
type SyncResult struct {
	Added    []string `json:"added"`
	Updated  []string `json:"updated"`
	Archived []string `json:"archived"`
	// Kept are ids the registry defines that the store already holds as a
	// rule created outside any registry (by the user, or from corrections):
	// that rule is left as it is, the registry's definition is not applied.
	Kept []string `json:"kept"`
}

var (
	qSyncState = sqlq(`SELECT rule_id, status, coalesce(archived_by, ''), source, coalesce(definition_sha256, ''), alpha, beta
	FROM persona_rules`)
	qSyncUpdate = sqlq(`UPDATE persona_rules SET category = ?, severity = ?, rule_text = ?, scope_environment = ?,
	scope_project = ?, scope_agent_family = ?, scope_context_tags = ?, scope_exclude_tags = ?, topic = ?, status = ?,
	archived_by = ?, source = 'registry', definition_sha256 = ?, updated_at = ?, row_version = ` + stampVersion + `
	WHERE rule_id = ?`)
	qSyncArchive = sqlq(`UPDATE persona_rules SET status = 'archived', archived_by = 'registry', updated_at = ?,
	row_version = ` + stampVersion + ` WHERE rule_id = ?`)
)

type syncDef struct {
	rule  engine.Rule
	sha   string
	texts []ruleText
}

// definitionSHA256 fingerprints what a registry defines about a rule.
func definitionSHA256(r *engine.Rule, examples []string) string {
	b, _ := json.Marshal(struct {
		C, Sev, T, Topic string
		S                engine.Scope
		E                []string
	}{r.Category, string(r.Severity), r.Text, r.Topic, r.Scope, examples})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkDefinitions validates every definition before anything is written.
func checkDefinitions(defs []engine.Definition, at time.Time) ([]syncDef, error) {
	out := make([]syncDef, 0, len(defs))
	seen := make(map[string]bool, len(defs))
	for i, d := range defs {
		r := engine.Rule{RuleID: d.Rule.RuleID, Category: d.Rule.Category, Severity: d.Rule.Severity, Text: d.Rule.Text,
			Scope: d.Rule.Scope, Topic: d.Rule.Topic, Alpha: 1, Beta: 1, FirstSeen: at, LastCorrection: at,
			Status: engine.StatusActiveEligible, Source: engine.SourceRegistry}
		if err := checkRule(&r); err != nil {
			return nil, engine.Errorf(engine.ErrorCode(err), "definition %d (%s): %s", i+1, d.Rule.RuleID, engine.ErrorMessage(err))
		}
		if seen[r.RuleID] {
			return nil, engine.Errorf(engine.EINVALID, "definition %d: duplicate rule id %s", i+1, r.RuleID)
		}
		seen[r.RuleID] = true
		sd := syncDef{rule: r, texts: []ruleText{{KindTemplate, r.Text}}}
		examples := make([]string, 0, len(d.Examples))
		for j, ex := range d.Examples {
			ex = strings.TrimSpace(ex)
			if err := engine.ValidateText(fmt.Sprintf("definition %d (%s): example %d", i+1, r.RuleID, j+1), ex, engine.MaxRuleTextLength); err != nil {
				return nil, err
			}
			examples = append(examples, ex)
			sd.texts = append(sd.texts, ruleText{KindExample, ex})
		}
		sd.sha = definitionSHA256(&r, examples)
		out = append(out, sd)
	}
	return out, nil
}

type syncState struct {
	status, archivedBy, source, sha string
	alpha, beta                     float64
}

// SyncDefinitions makes the store agree with a registry in one transaction:
// new definitions are inserted at the prior (source registry) with a creation
// event; rules whose definition in the registry changed since the last sync
// get the new definition fields and texts, never touching their evidence,
// with a manual_override event; rules archived because they had left the
// registry are restored; registry rules missing from defs are archived (never
// deleted); a rule created outside any registry (by the user, or from
// corrections) is never overwritten by a registry definition with its id
// (SyncResult.Kept). Each synced rule's template and example texts are replaced (the
// embeddings of removed texts go with them). A rule edited by the user keeps
// the edit until its registry definition changes. Errors: EINVALID (or
// ETOOLARGE) naming the first bad definition or a duplicate id; nothing is
// written then.
func (db *DB) SyncDefinitions(ctx context.Context, defs []engine.Definition, at time.Time) (SyncResult, error) {
	return db.SyncRegistry(ctx, RegistrySync{Definitions: defs, At: at})
}

// RegistrySync is what one registry sync writes, all in one transaction.
type RegistrySync struct {
	// Definitions are the registry's rules (see SyncDefinitions).
	Definitions []engine.Definition
	// Contrary, when set, gives the contrary texts of each rule the sync
	// defines but the kept ones (see SyncResult.Kept): each listed rule's
	// contrary texts become exactly those (see ReplaceRuleTexts).
	Contrary func(kept []string) map[string][]string
	// Name and YAML, when YAML is not nil, are recorded as the registry in
	// force (see Registry) in the same transaction.
	Name string
	YAML []byte
	// At is the time of the sync's events (zero: now).
	At time.Time
}

// SyncRegistry makes the store agree with a registry in one transaction:
// its definitions (as SyncDefinitions), its contrary texts and the registry
// in force switch together, so a crash leaves either the old registry or
// the new one, never a mix. On a database opened read-only it writes
// nothing and succeeds when s.YAML is already the registry in force (under
// s.Name). Errors: SyncDefinitions' and ReplaceRuleTexts' (nothing is
// written then); on a read-only database whose registry in force differs,
// the read-only fault (EUNAVAILABLE).
func (db *DB) SyncRegistry(ctx context.Context, s RegistrySync) (SyncResult, error) {
	at := nowIfZero(s.At)
	checked, err := checkDefinitions(s.Definitions, at)
	if err != nil {
		return SyncResult{}, err
	}
	if s.Contrary != nil {
		if err := checkTextsOf(KindContrary, s.Contrary(nil)); err != nil {
			return SyncResult{}, err
		}
	}
	res := SyncResult{Added: []string{}, Updated: []string{}, Archived: []string{}, Kept: []string{}}
	if db.readOnly {
		if s.YAML != nil {
			if name, yaml, ok, err := db.Registry(ctx); err != nil || (ok && name == s.Name && string(yaml) == string(s.YAML)) {
				return res, err
			}
		}
		return res, db.readOnlyErr()
	}
	err = db.Write(ctx, func(tx *Tx) error {
		if err := tx.syncDefinitions(checked, at, &res); err != nil {
			return err
		}
		if s.Contrary != nil {
			if err := tx.replaceTextsOf(KindContrary, s.Contrary(res.Kept)); err != nil {
				return err
			}
		}
		if s.YAML != nil {
			return tx.saveRegistry(s.Name, s.YAML)
		}
		return nil
	})
	if err != nil {
		return SyncResult{}, err
	}
	return res, nil
}

// syncDefinitions is SyncDefinitions' work in tx, recorded in res.
func (tx *Tx) syncDefinitions(checked []syncDef, at time.Time, res *SyncResult) error {
	cfg, err := tx.Config()
	if err != nil {
		return err
	}
	state := map[string]syncState{}
	if err := tx.scan(qSyncState, nil, func(sc scanner) error {
		var id string
		var s syncState
		err := sc.Scan(&id, &s.status, &s.archivedBy, &s.source, &s.sha, &s.alpha, &s.beta)
		state[id] = s
		return err
	}); err != nil {
		return err
	}
	inDefs := make(map[string]bool, len(checked))
	now := fmtTime(time.Now())
	for i := range checked {
		d := &checked[i]
		inDefs[d.rule.RuleID] = true
		st, exists := state[d.rule.RuleID]
		if !exists {
			if err := tx.syncInsert(d, cfg, at); err != nil {
				return err
			}
			res.Added = append(res.Added, d.rule.RuleID)
			continue
		}
		if st.source != engine.SourceRegistry && st.sha == "" {
			res.Kept = append(res.Kept, d.rule.RuleID)
			continue
		}
		changed := st.sha != d.sha
		restore := st.status == string(engine.StatusArchived) && st.archivedBy == "registry"
		if !changed && !restore {
			continue
		}
		if err := tx.syncUpdate(d, changed, restore, now, at); err != nil {
			return err
		}
		res.Updated = append(res.Updated, d.rule.RuleID)
	}
	ids := make([]string, 0, len(state))
	for id := range state {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		st := state[id]
		if inDefs[id] || st.source != engine.SourceRegistry || st.status == string(engine.StatusArchived) {
			continue
		}
		if _, err := tx.exec(qSyncArchive, now, id); err != nil {
			return dbErr("archive rule "+id, err)
		}
		if _, err := tx.insertEvent(&engine.Event{RuleID: id, EventType: engine.EventManualOverride,
			Detail: "archived: no longer in the registry", Alpha: st.alpha, Beta: st.beta, At: at}); err != nil {
			return err
		}
		res.Archived = append(res.Archived, id)
	}
	return nil
}

func (tx *Tx) syncInsert(d *syncDef, cfg engine.Config, at time.Time) error {
	r := d.rule
	r.Alpha, r.Beta = cfg.AlphaPrior, cfg.BetaPrior
	if err := tx.insertRuleRow(&r, "", d.sha); err != nil {
		return err
	}
	if _, err := tx.insertEvent(&engine.Event{RuleID: r.RuleID, EventType: engine.EventCreation,
		Detail: "created from the registry", Alpha: r.Alpha, Beta: r.Beta, At: at}); err != nil {
		return err
	}
	now := fmtTime(time.Now())
	seen := make(map[string]bool, len(d.texts))
	for _, x := range d.texts { // the template comes first, so a duplicate example never demotes it
		sum := textSHA256(x.text)
		if seen[sum] {
			continue
		}
		seen[sum] = true
		if _, err := tx.exec(qTextInsert, r.RuleID, x.kind, x.text, sum, now); err != nil {
			return dbErr("insert rule text", err)
		}
	}
	return nil
}

func (tx *Tx) syncUpdate(d *syncDef, changed, restore bool, now string, at time.Time) error {
	old, err := tx.GetRule(d.rule.RuleID)
	if err != nil {
		return err
	}
	r := old
	var notes []string
	if changed {
		var fields []string
		for _, f := range []struct {
			name     string
			from, to string
		}{
			{"category", old.Category, d.rule.Category}, {"severity", string(old.Severity), string(d.rule.Severity)},
			{"text", old.Text, d.rule.Text}, {"scope", scopeJSON(old.Scope), scopeJSON(d.rule.Scope)}, {"topic", old.Topic, d.rule.Topic},
		} {
			if f.from != f.to {
				fields = append(fields, f.name)
			}
		}
		if len(fields) == 0 {
			fields = []string{"examples"}
		}
		notes = append(notes, "definition updated from registry ("+strings.Join(fields, ", ")+")")
		r.Category, r.Severity, r.Text, r.Scope, r.Topic = d.rule.Category, d.rule.Severity, d.rule.Text, d.rule.Scope, d.rule.Topic
		if r.Status == engine.StatusCandidate {
			r.Status = engine.StatusActiveEligible
			notes = append(notes, "promoted from candidate")
		}
	}
	var archivedBy any
	if restore {
		r.Status = engine.StatusActiveEligible
		notes = append(notes, "restored: back in the registry")
	} else if r.Status == engine.StatusArchived {
		archivedBy = "user"
	}
	if _, err := tx.exec(qSyncUpdate, r.Category, string(r.Severity), r.Text, nullStr(r.Scope.Environment),
		nullStr(r.Scope.Project), nullStr(r.Scope.AgentFamily), tagsJSON(r.Scope.ContextTags), tagsJSON(r.Scope.ExcludeTags),
		nullStr(r.Topic), string(r.Status), archivedBy, d.sha, now, r.RuleID); err != nil {
		return dbErr("update rule "+r.RuleID, err)
	}
	if changed {
		if err := tx.replaceTexts(r.RuleID, []string{KindTemplate, KindExample}, d.texts); err != nil {
			return err
		}
	}
	_, err = tx.insertEvent(&engine.Event{RuleID: r.RuleID, EventType: engine.EventManualOverride,
		Detail: strings.Join(notes, "; "), Alpha: r.Alpha, Beta: r.Beta, At: at})
	return err
}

// checkTextsOf validates texts of kind before anything is written: EINVALID
// for an unknown kind or an empty text, ETOOLARGE for one over the limit,
// each naming its rule.
func checkTextsOf(kind string, texts map[string][]string) error {
	if err := checkText(kind, "x"); err != nil {
		return err
	}
	for id, list := range texts {
		for _, x := range list {
			if err := checkText(kind, x); err != nil {
				return engine.Errorf(engine.ErrorCode(err), "rule %s: %s", id, engine.ErrorMessage(err))
			}
		}
	}
	return nil
}

// replaceTextsOf is ReplaceRuleTexts in tx, for texts already checked
// (checkTextsOf): ENOTFOUND naming an unknown rule.
func (tx *Tx) replaceTextsOf(kind string, texts map[string][]string) error {
	ids := make([]string, 0, len(texts))
	for id := range texts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if ok, err := ruleExists(tx.runner, id); err != nil || !ok {
			if err == nil {
				err = engine.Errorf(engine.ENOTFOUND, "rule %q not found", id)
			}
			return err
		}
		list := make([]ruleText, len(texts[id]))
		for i, x := range texts[id] {
			list[i] = ruleText{kind, x}
		}
		if err := tx.replaceTexts(id, []string{kind}, list); err != nil {
			return err
		}
	}
	return nil
}
