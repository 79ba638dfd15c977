package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// RuleUpdate lists the definition fields UpdateRule changes; nil fields stay.
// An empty Topic clears it.
type RuleUpdate struct {
	Text, Category, Topic *string
	Severity              *engine.Severity
	Scope                 *engine.Scope
	Status                *engine.Status
	RenameTo              *string
	// Stated, when set, names the explicit act (engine.Stated*) that puts
	// the rule in force at once: the rule is stated with its text.
	Stated string
}

// UpdateRule changes a rule's definition in one transaction and appends one
// manual_override event describing every change; its evidence is untouched. A
// rename moves its events, texts, embeddings and exception links to the new
// id; a new text replaces its template text. An update that changes nothing
// returns the rule without writing. Errors: EINVALID when u sets nothing or a
// field is bad, or sets the status of an exception proposal waiting for a
// decision (AcceptCandidate and RejectCandidate decide it, and accepting also
// excludes its tag from the original rule); ENOTFOUND for an unknown rule;
// ECONFLICT when RenameTo exists. On error nothing is written.
func UpdateRule(ctx context.Context, db *store.DB, id string, u RuleUpdate, at time.Time) (engine.Rule, error) {
	if u == (RuleUpdate{}) {
		return engine.Rule{}, engine.Errorf(engine.EINVALID, "nothing to update: give a text, category, severity, scope, topic, status or new id")
	}
	at = atOrNow(at)
	var out engine.Rule
	err := db.Write(ctx, at, func(tx *store.Tx) error {
		old, err := tx.GetRule(id)
		if err != nil {
			return err
		}
		r := old
		var changes []string
		change := func(field, from, to string) {
			if from != to {
				changes = append(changes, fmt.Sprintf("%s: %q → %q", field, from, to))
			}
		}
		if u.Text != nil {
			r.Text = strings.TrimSpace(*u.Text)
			change("text", old.Text, r.Text)
		}
		if u.Category != nil {
			r.Category = strings.TrimSpace(*u.Category)
			change("category", old.Category, r.Category)
		}
		if u.Topic != nil {
			r.Topic = strings.TrimSpace(*u.Topic)
			change("topic", old.Topic, r.Topic)
		}
		if u.Severity != nil {
			sev, err := engine.ParseSeverity(string(*u.Severity))
			if err != nil {
				return err
			}
			r.Severity = sev
			change("severity", string(old.Severity), string(r.Severity))
		}
		if u.Scope != nil {
			if r.Scope, err = engine.ParseScope(*u.Scope); err != nil {
				return err
			}
			change("scope", old.Scope.String(), r.Scope.String())
		}
		if u.Status != nil {
			if r.Status, err = engine.ParseStatus(string(*u.Status)); err != nil {
				return err
			}
			if err := checkExceptionStatus(old, r.Status); err != nil {
				return err
			}
			change("status", string(old.Status), string(r.Status))
		}
		if u.Stated != "" {
			r.State(u.Stated, r.Text, at)
			changes = append(changes, "stated: "+u.Stated)
		}
		if u.RenameTo != nil && *u.RenameTo != old.RuleID {
			if err := engine.ValidateRuleID(*u.RenameTo); err != nil {
				return err
			}
			if taken, err := tx.RuleExists(*u.RenameTo); err != nil || taken {
				if err == nil {
					err = engine.Errorf(engine.ECONFLICT, "cannot rename %s to %s: rule %s exists", old.RuleID, *u.RenameTo, *u.RenameTo)
				}
				return err
			}
			r.RuleID = *u.RenameTo
			changes = append(changes, fmt.Sprintf("renamed from %s to %s", old.RuleID, r.RuleID))
		}
		if err := store.CheckRule(&r); err != nil {
			return err
		}
		if len(changes) == 0 {
			out = old
			return nil
		}
		if r.RuleID != old.RuleID {
			if err := tx.RenameRule(old.RuleID, r.RuleID); err != nil {
				return err
			}
		}
		if err := tx.SaveRule(r); err != nil {
			return err
		}
		if r.Text != old.Text && r.ExceptionOf == "" {
			if err := replaceTexts(tx, r.RuleID, []string{store.KindTemplate}, []kindText{{Kind: store.KindTemplate, Text: r.Text}}); err != nil {
				return err
			}
		}
		if _, err := tx.AppendEvent(engine.Event{RuleID: r.RuleID, EventType: engine.EventManualOverride,
			Detail: "edited: " + strings.Join(changes, "; "), Alpha: r.Alpha, Beta: r.Beta, At: at}); err != nil {
			return err
		}
		out, err = tx.GetRule(r.RuleID)
		return err
	})
	return out, err
}

// checkExceptionStatus refuses, with an EINVALID error naming the commands
// and routes to use, a status change of r when r is an exception proposal
// waiting for a decision.
func checkExceptionStatus(r engine.Rule, to engine.Status) error {
	if r.ExceptionOf == "" || r.Status != engine.StatusCandidate || to == engine.StatusCandidate {
		return nil
	}
	id, parent := r.RuleID, r.ExceptionOf
	return engine.Errorf(engine.EINVALID,
		"rule %s is a proposed exception to %s: its status is set by accepting it, which also excludes its tag from %s "+
			"(`lexsona rules accept %s`, POST /v1/rules/%s/accept, MCP review_candidate), or by rejecting it "+
			"(`lexsona rules reject %s`, POST /v1/rules/%s/reject)",
		id, parent, parent, id, id, id, id)
}

// MergeRule merges a candidate rule into an existing one in one transaction:
// the candidate's events move to into; its texts become into's correction
// texts (with their embeddings); exception proposals and rejections naming it
// name into; its reinforcements and counterexamples are added to into's
// alpha, beta and counts; the candidate is deleted; into gets a
// manual_override event. It returns into as saved. Errors: EINVALID when from
// is not a candidate (or is an exception proposal), or both are the same
// rule; ECONFLICT when into is archived; ENOTFOUND for an unknown rule.
func MergeRule(ctx context.Context, db *store.DB, fromID, intoID string, at time.Time) (engine.Rule, error) {
	at = atOrNow(at)
	var out engine.Rule
	err := db.Write(ctx, at, func(tx *store.Tx) error {
		from, err := tx.GetRule(fromID)
		if err != nil {
			return err
		}
		into, err := tx.GetRule(intoID)
		if err != nil {
			return err
		}
		switch {
		case from.RuleID == into.RuleID:
			return engine.Errorf(engine.EINVALID, "cannot merge rule %s into itself", from.RuleID)
		case from.Status != engine.StatusCandidate:
			return engine.Errorf(engine.EINVALID, "only a candidate can be merged into another rule: %s is %s", from.RuleID, from.Status)
		case from.ExceptionOf != "":
			return engine.Errorf(engine.EINVALID, "%s is an exception proposal: accept or reject it instead", from.RuleID)
		case into.Status == engine.StatusArchived:
			return engine.Errorf(engine.ECONFLICT, "cannot merge into %s: it is archived", into.RuleID)
		}
		into.MergeEvidence(from)
		if err := tx.SaveRule(into); err != nil {
			return err
		}
		if err := mergeTexts(tx, from.RuleID, into.RuleID); err != nil {
			return err
		}
		if err := tx.MoveRuleRows(from.RuleID, into.RuleID); err != nil {
			return err
		}
		if err := tx.DeleteRule(from.RuleID); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(engine.Event{RuleID: into.RuleID, EventType: engine.EventManualOverride,
			Detail: fmt.Sprintf("merged candidate %s: +%d reinforcements, +%d counterexamples", from.RuleID,
				from.Reinforcements, from.CounterExamples), Alpha: into.Alpha, Beta: into.Beta, At: at}); err != nil {
			return err
		}
		out, err = tx.GetRule(into.RuleID)
		return err
	})
	return out, err
}

// ArchiveRule archives a rule (it keeps its history and is never injected)
// with a manual_override event, and returns it. Archiving an archived rule
// changes nothing. Errors: EINVALID for a malformed id, ENOTFOUND for an
// unknown rule.
func ArchiveRule(ctx context.Context, db *store.DB, id string, at time.Time) (engine.Rule, error) {
	at = atOrNow(at)
	var out engine.Rule
	err := db.Write(ctx, at, func(tx *store.Tx) error {
		r, err := tx.GetRule(id)
		if err != nil || r.Status == engine.StatusArchived {
			out = r
			return err
		}
		old := r.Status
		r.Status = engine.StatusArchived
		if err := tx.SaveRule(r); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(engine.Event{RuleID: r.RuleID, EventType: engine.EventManualOverride,
			Detail: "archived (was " + string(old) + ")", Alpha: r.Alpha, Beta: r.Beta, At: at}); err != nil {
			return err
		}
		out, err = tx.GetRule(id)
		return err
	})
	return out, err
}
