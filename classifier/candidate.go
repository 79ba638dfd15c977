package classifier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// proposal is a candidate rule's text and its vectors, computed before the
// write transaction so that no embedding runs while the write lock is held.
type proposal struct {
	text         string
	model, lexID string
	vec, lexVec  []float32
}

// candidateText is the text a candidate rule proposed from a correction gets
// (engine.NewCandidateRule's, as the store keeps it).
func candidateText(text string) string {
	return strings.TrimSpace(engine.NewCandidateRule(text, "", engine.Scope{}, engine.DefaultConfig(), time.Unix(0, 0)).Text)
}

// propose prepares the candidate rule for text, reusing cl's vectors when the
// rule's text is exactly what was embedded (any text up to 4 KiB) and
// embedding the rule's text otherwise. cl may be nil (a confirmation resolved
// as new: nothing was embedded yet).
func (c *Classifier) propose(ctx context.Context, text string, cl *classified) (proposal, error) {
	return c.vectors(ctx, candidateText(text), cl)
}

// vectors embeds a rule's text with the classifier's embedders (reusing cl's
// vectors when cl embedded exactly text with the same models; cl may be nil).
func (c *Classifier) vectors(ctx context.Context, text string, cl *classified) (proposal, error) {
	p := proposal{text: text, model: c.emb.Identity().ID()}
	if c.opts.Lexical != nil {
		p.lexID = c.opts.Lexical.Identity().ID()
	}
	var err error
	if cl != nil && cl.input == p.text && cl.Model == p.model {
		p.vec = cl.vec.vector()
	}
	if p.vec == nil {
		if p.vec, err = embedOne(ctx, c.emb, p.text); err != nil {
			return p, err
		}
	}
	if p.lexID == "" {
		return p, nil
	}
	if cl != nil && cl.input == p.text && cl.lexID == p.lexID {
		p.lexVec = cl.lexVec.vector()
	}
	if p.lexVec == nil {
		if p.lexVec, err = embedOne(ctx, c.opts.Lexical, p.text); err != nil {
			return p, err
		}
	}
	return p, nil
}

// candidateScope is where a proposed rule applies: the correction's
// environment, project and agent family. Context tags describe the moment
// of the correction, not the rule, so they are left out.
func candidateScope(s engine.Scope) engine.Scope {
	return engine.Scope{Environment: s.Environment, Project: s.Project, AgentFamily: s.AgentFamily}
}

// store saves p's vectors as those of rule id's template text (p.text).
func (p proposal) store(tx *store.Tx, id string) error {
	sum := sha256.Sum256([]byte(p.text))
	item := store.RuleText{RuleID: id, Kind: store.KindTemplate, Text: p.text, SHA256: hex.EncodeToString(sum[:])}
	if err := tx.PutEmbedding(p.model, item, p.vec); err != nil {
		return err
	}
	if p.lexID != "" {
		return tx.PutEmbedding(p.lexID, item, p.lexVec)
	}
	return nil
}

// insertCandidate inserts the candidate rule of p (proposed from text, made
// in scope) with its creation event ev and stores its template's vectors. Its
// id is engine.ProposedRuleID(text), suffixed -2 … -9 when taken (an archived
// or out-of-scope proposal of the same text). Errors: ECONFLICT when all ten
// ids are taken; the store's otherwise.
func (c *Classifier) insertCandidate(tx *store.Tx, p proposal, text string, scope engine.Scope, ev engine.Event, at time.Time) (store.RecordResult, engine.Rule, error) {
	cfg, err := tx.Config()
	if err != nil {
		return store.RecordResult{}, engine.Rule{}, err
	}
	r := engine.NewCandidateRule(text, "", candidateScope(scope), cfg, at)
	r.Text = p.text
	base := r.RuleID
	for i := 2; ; i++ {
		_, err := tx.GetRule(r.RuleID)
		if engine.ErrorCode(err) == engine.ENOTFOUND {
			break
		}
		if err != nil {
			return store.RecordResult{}, engine.Rule{}, err
		}
		if i > 9 {
			return store.RecordResult{}, engine.Rule{}, engine.Errorf(engine.ECONFLICT, "rule %s and its variants -2 to -9 already exist: merge or rename them first", base)
		}
		r.RuleID = fmt.Sprintf("%s-%d", base, i)
	}
	evID, err := tx.InsertRule(r, ev)
	if err != nil {
		return store.RecordResult{}, engine.Rule{}, err
	}
	if err := p.store(tx, r.RuleID); err != nil {
		return store.RecordResult{}, engine.Rule{}, err
	}
	saved, err := tx.GetRule(r.RuleID)
	if err != nil {
		return store.RecordResult{}, engine.Rule{}, err
	}
	a := engine.Assess(&saved, cfg, at)
	return store.RecordResult{EventID: evID, RuleID: saved.RuleID, EventType: engine.EventCreation, Alpha: saved.Alpha,
		Beta: saved.Beta, Confidence: a.ConfidenceFinal, Active: a.Active}, saved, nil
}
