package memory

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// ImportOptions say what an import does with a rule the memory already
// has. The zero value keeps the memory's rule as it is and reports, per
// rule, the file's events it did not import.
type ImportOptions struct {
	// Merge appends to such a rule the file's evidence it does not have —
	// reinforcements, counterexamples, confirmations and violations, by
	// content — and recomputes its α and β from them (see
	// mergeImportedEvents). The file's copy's own lifecycle
	// (creation, promotion, edits) is not merged; its definition, texts and
	// status are the memory's.
	Merge bool
}

// Outcomes of a rule the memory already had (RuleImport.Outcome).
const (
	RuleKept   = "kept"
	RuleMerged = "merged"
)

// RuleImport says what an import did with a rule of the file that the
// memory already had (by id): it kept the memory's rule (RuleKept), or
// kept it and appended the file's evidence it did not have (RuleMerged).
type RuleImport struct {
	RuleID  string `json:"rule_id"`
	Outcome string `json:"outcome"`
	// FileEvents counts the rule's events in the file; Present those the
	// memory has already (same type, time, texts, frame, scope, detail);
	// Lacking those it does not have that Merge appends (corrections,
	// confirmations, violations); Merged those appended (Lacking with
	// Merge, else 0); NotImported the file's events left out (all but
	// Present without Merge; with it, the file copy's own creation,
	// promotion and edits).
	FileEvents  int `json:"file_events"`
	Present     int `json:"present"`
	Lacking     int `json:"lacking"`
	Merged      int `json:"merged"`
	NotImported int `json:"not_imported"`
	// Events counts the rule's events in the memory after the import;
	// Alpha and Beta are its evidence then.
	Events int     `json:"events"`
	Alpha  float64 `json:"alpha"`
	Beta   float64 `json:"beta"`
}

// mergeable reports whether an event of the file may be appended to the
// memory's rule of the same id: what was observed of the rule (evidence,
// violations), not what happened to the file's copy of it.
func mergeable(t engine.EventType) bool {
	switch t {
	case engine.EventReinforcement, engine.EventCounterexample, engine.EventConfirmation, engine.EventViolation:
		return true
	}
	return false
}

// eventKey is an event's content: what it is, when, what was said and
// where, without what differs between stores (its id) or follows from the
// rest of a rule's history (α and β).
func eventKey(ev engine.Event) string {
	scope, _ := json.Marshal(ev.Scope.Normalize()) // a Scope always encodes
	return strings.Join([]string{string(ev.EventType), itoaPolarity(ev.Polarity), ev.At.UTC().Format(time.RFC3339Nano),
		ev.UserText, ev.AgentOutput, ev.FrameID, string(scope), ev.Detail}, "\x00")
}

func itoaPolarity(p engine.Polarity) string {
	switch p {
	case engine.Reinforce:
		return "+"
	case engine.Counter:
		return "-"
	}
	return "0"
}

// keepRule compares the file's events of a rule the memory has with the
// memory's and, with merge, appends those it may and does not have.
func keepRule(tx *store.Tx, r *ruleRecords, merge bool, at time.Time) (RuleImport, error) {
	id := r.row.RuleID
	have, err := tx.RuleEvents(id)
	if err != nil {
		return RuleImport{}, err
	}
	seen := make(map[string]bool, len(have))
	for _, ev := range have {
		seen[eventKey(ev)] = true
	}
	ri := RuleImport{RuleID: id, Outcome: RuleKept, FileEvents: len(r.events)}
	var add []engine.Event
	for _, ev := range r.events {
		k := eventKey(ev)
		switch {
		case seen[k]:
			ri.Present++
		case mergeable(ev.EventType):
			seen[k] = true
			add = append(add, ev)
		}
	}
	ri.Lacking = len(add)
	if !merge {
		add = nil
	}
	rule, err := mergeImportedEvents(tx, id, add, at)
	if err != nil {
		return RuleImport{}, err
	}
	ri.Merged, ri.NotImported = len(add), ri.FileEvents-ri.Present-len(add)
	ri.Events, ri.Alpha, ri.Beta = len(have), rule.Alpha, rule.Beta
	if len(add) > 0 {
		ri.Outcome, ri.Events = RuleMerged, len(have)+len(add)+1
	}
	return ri, nil
}

// mergeImportedEvents appends exported events of rule id to the store's
// rule of that id, in the order given, and recomputes its evidence from
// them: each reinforcement, counterexample or confirmation adds its
// polarity (engine.Rule.ApplyEvidence at the event's time), and each event
// records the rule's α and β after it. A manual_override event at `at`
// then says what was merged, so that the rule's α and β are its last
// event's. It returns the rule as saved. Errors: store.CheckImportEvent's;
// ENOTFOUND for an unknown rule; the store's.
func mergeImportedEvents(t *store.Tx, id string, events []engine.Event, at time.Time) (engine.Rule, error) {
	r, err := t.GetRule(id)
	if err != nil || len(events) == 0 {
		return r, err
	}
	alpha, beta := r.Alpha, r.Beta
	var plus, minus int
	for _, ev := range events {
		if err := store.CheckImportEvent(id, &ev); err != nil {
			return engine.Rule{}, err
		}
		switch ev.Polarity {
		case engine.Reinforce:
			plus++
		case engine.Counter:
			minus++
		}
		if ev.Polarity != 0 {
			r.ApplyEvidence(ev.Polarity, ev.At)
		}
		ev.Alpha, ev.Beta = r.Alpha, r.Beta
		if _, err := t.InsertEvent(&ev); err != nil {
			return engine.Rule{}, err
		}
	}
	if err := t.UpdateEvidence(r); err != nil {
		return engine.Rule{}, err
	}
	detail := fmt.Sprintf("merged %d events of an import: +%d reinforcements, +%d counterexamples (alpha %g → %g, beta %g → %g)",
		len(events), plus, minus, alpha, r.Alpha, beta, r.Beta)
	if _, err := t.InsertEvent(&engine.Event{RuleID: id, EventType: engine.EventManualOverride, Detail: detail,
		Alpha: r.Alpha, Beta: r.Beta, At: atOrNow(at)}); err != nil {
		return engine.Rule{}, err
	}
	return r, nil
}
