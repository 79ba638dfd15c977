package memory

import (
	"context"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/store"
)

// NewRule is a rule a user defines, created at the prior.
type NewRule struct {
	RuleID   string       `json:"rule_id" jsonschema:"the rule id, lowercase and dotted, e.g. tool.run-go-vet"`
	Category string       `json:"category" jsonschema:"a lowercase word, e.g. tool_preference, communication_style, security_policy, code_style"`
	Severity string       `json:"severity,omitempty" jsonschema:"must, should (default) or style"`
	Text     string       `json:"text" jsonschema:"the rule as it is injected into the prompt"`
	Scope    engine.Scope `json:"scope,omitzero" jsonschema:"where it applies; empty: everywhere"`
	Topic    string       `json:"topic,omitempty" jsonschema:"conflict group: rules of one topic compete"`
	// At is when the rule was created (zero: now), for backfills.
	At time.Time `json:"-"`
}

// AddRule creates the rule of n at the prior, stated by the user (in force
// at once: engine.StatedInForce) and, in the same transaction,
// stores the vectors of its text for the classifier's embedders, so that the
// very next correction can match it (the text is embedded before the write
// lock is taken). It returns the rule assessed now. Errors: EINVALID or
// ETOOLARGE naming a bad field (checked before anything is embedded),
// ECONFLICT when the id exists, the embedder's. On error nothing is written.
func (s *Service) AddRule(ctx context.Context, n NewRule) (engine.RuleView, error) {
	sev := engine.SeverityShould
	if n.Severity != "" {
		var err error
		if sev, err = engine.ParseSeverity(n.Severity); err != nil {
			return engine.RuleView{}, err
		}
	}
	// ParseScope bounds the tag lists as given, before NewRule folds
	// blanks and repeats away.
	scope, err := engine.ParseScope(n.Scope)
	if err != nil {
		return engine.RuleView{}, err
	}
	now := s.at(n.At)
	cfg, err := s.db.Config(ctx)
	if err != nil {
		return engine.RuleView{}, err
	}
	redact.Strings(&n.Text) // a rule's text is printed into every prompt: never a secret
	r := engine.NewRule(n.RuleID, n.Category, sev, n.Text, scope, cfg, now)
	r.Topic = n.Topic
	r.Status = engine.StatusActiveEligible
	r.State(engine.StatedRuleAdded, r.Text, now)
	if err := r.Validate(); err != nil {
		return engine.RuleView{}, err
	}
	p, err := s.clf.Vectors(ctx, r.Text, nil)
	if err != nil {
		return engine.RuleView{}, err
	}
	var out engine.Rule
	err = s.db.Write(ctx, s.Now(), func(tx *store.Tx) error {
		if _, err := tx.InsertRule(r, engine.Event{Detail: "created (source: " + r.Source + ")"}); err != nil {
			return err
		}
		if err := putVectors(tx, p, r.RuleID); err != nil {
			return err
		}
		var err error
		out, err = tx.GetRule(r.RuleID)
		return err
	})
	if err != nil {
		return engine.RuleView{}, err
	}
	return engine.View(out, cfg, now), nil
}

// ReviewCandidate accepts or rejects candidate rule id at at (zero: now) and
// returns it assessed then. Accepting an exception proposal also excludes
// its tag from the rule it is an exception to; rejecting archives the
// candidate (an exception proposal is never proposed again). An id the
// rule had before a rename or merge reaches it (followRename). Errors:
// EINVALID for a malformed id, ENOTFOUND for an unknown one, ECONFLICT when
// it is not a candidate.
func (s *Service) ReviewCandidate(ctx context.Context, id string, accept bool, at time.Time) (engine.RuleView, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.RuleView{}, err
	}
	at = s.at(at)
	review := RejectCandidate
	if accept {
		review = AcceptCandidate
	}
	r, err := followRename(ctx, s.db, id, func(id string) (engine.Rule, error) { return review(ctx, s.db, id, at) })
	if err != nil {
		return engine.RuleView{}, err
	}
	return s.view(ctx, r, at)
}

// RulePatch is a change of a rule's definition: nil fields stay; Topic ""
// clears the topic; a Scope replaces the whole scope; RenameTo moves the
// rule and its history to a new id. Evidence is never changed.
type RulePatch struct {
	Text     *string       `json:"text"`
	Category *string       `json:"category"`
	Severity *string       `json:"severity"`
	Scope    *engine.Scope `json:"scope"`
	Topic    *string       `json:"topic"`
	Status   *string       `json:"status"`
	RenameTo *string       `json:"rename_to,omitempty"`
}

// EditRule applies p to rule id at at (zero: now), with one manual_override
// event, and returns the rule assessed then; an id the rule had before a
// rename or merge reaches it (followRename). Errors: EINVALID when p changes
// nothing or names a bad field, or sets the status of an exception proposal
// (ReviewCandidate decides those); ENOTFOUND for an unknown rule; ECONFLICT
// when RenameTo exists.
func (s *Service) EditRule(ctx context.Context, id string, p RulePatch, at time.Time) (engine.RuleView, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.RuleView{}, err
	}
	if p.Text != nil {
		text := *p.Text
		redact.Strings(&text)
		p.Text = &text
	}
	u := RuleUpdate{Text: p.Text, Category: p.Category, Topic: p.Topic, Scope: p.Scope, RenameTo: p.RenameTo}
	if p.Severity != nil {
		sev, err := engine.ParseSeverity(*p.Severity)
		if err != nil {
			return engine.RuleView{}, err
		}
		u.Severity = &sev
	}
	if p.Status != nil {
		st, err := engine.ParseStatus(*p.Status)
		if err != nil {
			return engine.RuleView{}, err
		}
		u.Status = &st
	}
	if u == (RuleUpdate{}) {
		return engine.RuleView{}, engine.Errorf(engine.EINVALID, "nothing to update: give at least one of text, category, severity, scope, topic, status, rename")
	}
	at = s.at(at)
	r, err := followRename(ctx, s.db, id, func(id string) (engine.Rule, error) { return UpdateRule(ctx, s.db, id, u, at) })
	if err != nil {
		return engine.RuleView{}, err
	}
	return s.view(ctx, r, at)
}

// MergeRule moves candidate from's events and evidence into rule into and
// removes from; it returns into assessed at at (zero: now). Errors: the
// store's (EINVALID when from is not a candidate or is an exception
// proposal; ECONFLICT when into is archived; ENOTFOUND for an unknown id).
func (s *Service) MergeRule(ctx context.Context, from, into string, at time.Time) (engine.RuleView, error) {
	at = s.at(at)
	r, err := MergeRule(ctx, s.db, from, into, at)
	if err != nil {
		return engine.RuleView{}, err
	}
	return s.view(ctx, r, at)
}

// ArchiveRule archives rule id (never injected again, history kept) and
// returns it assessed at at (zero: now); an id the rule had before a rename
// or merge reaches it (followRename). Errors: EINVALID for a malformed id,
// ENOTFOUND for an unknown one.
func (s *Service) ArchiveRule(ctx context.Context, id string, at time.Time) (engine.RuleView, error) {
	if err := engine.ValidateRuleID(id); err != nil {
		return engine.RuleView{}, err
	}
	at = s.at(at)
	r, err := followRename(ctx, s.db, id, func(id string) (engine.Rule, error) { return ArchiveRule(ctx, s.db, id, at) })
	if err != nil {
		return engine.RuleView{}, err
	}
	return s.view(ctx, r, at)
}
