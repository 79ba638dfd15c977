package memory

import (
	"fmt"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// candidateScope is where a proposed rule applies: the correction's
// environment, project and agent family. Context tags describe the moment
// of the correction, not the rule, so they are left out.
func candidateScope(s engine.Scope) engine.Scope {
	return engine.Scope{Environment: s.Environment, Project: s.Project, AgentFamily: s.AgentFamily}
}

// putVectors saves p's vectors as those of rule id's template text (p.Text).
func putVectors(tx *store.Tx, p classifier.TextVectors, id string) error {
	item := store.RuleText{RuleID: id, Kind: store.KindTemplate, Text: p.Text, SHA256: store.TextSHA256(p.Text)}
	if err := tx.PutEmbedding(p.Model, item, p.Vector); err != nil {
		return err
	}
	if p.LexModel != "" {
		return tx.PutEmbedding(p.LexModel, item, p.LexVector)
	}
	return nil
}

// insertCandidate inserts the candidate rule of p (proposed from text, made
// in scope) with its creation event ev and stores its template's vectors. Its
// id is engine.ProposedRuleID(text), suffixed -2 … -9 when taken (an archived
// or out-of-scope proposal of the same text). Errors: ECONFLICT when all ten
// ids are taken; the store's otherwise.
func insertCandidate(tx *store.Tx, p classifier.TextVectors, text string, scope engine.Scope, ev engine.Event, at time.Time) (RecordResult, engine.Rule, error) {
	cfg, err := tx.Config()
	if err != nil {
		return RecordResult{}, engine.Rule{}, err
	}
	r := engine.NewCandidateRule(text, "", candidateScope(scope), cfg, at)
	r.Text = p.Text
	base := r.RuleID
	for i := 2; ; i++ {
		_, err := tx.GetRule(r.RuleID)
		if engine.ErrorCode(err) == engine.ENOTFOUND {
			break
		}
		if err != nil {
			return RecordResult{}, engine.Rule{}, err
		}
		if i > 9 {
			return RecordResult{}, engine.Rule{}, engine.Errorf(engine.ECONFLICT, "rule %s and its variants -2 to -9 already exist: merge or rename them first", base)
		}
		r.RuleID = fmt.Sprintf("%s-%d", base, i)
	}
	evID, err := tx.InsertRule(r, ev)
	if err != nil {
		return RecordResult{}, engine.Rule{}, err
	}
	if err := putVectors(tx, p, r.RuleID); err != nil {
		return RecordResult{}, engine.Rule{}, err
	}
	saved, err := tx.GetRule(r.RuleID)
	if err != nil {
		return RecordResult{}, engine.Rule{}, err
	}
	a := engine.Assess(&saved, cfg, at)
	return RecordResult{EventID: evID, RuleID: saved.RuleID, EventType: engine.EventCreation, Alpha: saved.Alpha,
		Beta: saved.Beta, Confidence: a.ConfidenceFinal, Active: a.Active}, saved, nil
}
