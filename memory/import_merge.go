package memory

import (
	"crypto/sha256"
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
	// content, and the correction that created the file's copy when it was
	// a candidate proposed from one (as a reinforcement) — but not what the
	// file retracts, and recomputes its α and β from them (see
	// ruleKeeper). The file's copy's own lifecycle (the rest of its
	// creation, promotion, edits, retractions) is not merged; its
	// definition, texts and status are the memory's.
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
	// confirmations, violations, a creating correction); Merged those
	// appended (Lacking with Merge, else 0); NotImported the file's events
	// left out (all but Present without Merge; with it, the file copy's
	// own creation, promotion, edits, and the corrections it retracts).
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
// violations, the correction a candidate was proposed from), not what
// happened to the file's copy of it.
func mergeable(ev engine.Event, step engine.ReplayStep) bool {
	switch ev.EventType {
	case engine.EventReinforcement, engine.EventCounterexample, engine.EventConfirmation, engine.EventViolation:
		return true
	case engine.EventCreation:
		return step.Evidence != 0
	}
	return false
}

// eventKey is the digest of an event's content: what it is, when, what
// was said and where, without what differs between stores (its id) or
// follows from the rest of a rule's history (α and β). A creation with
// a correction's words is keyed as the reinforcement a merge appends of
// it.
func eventKey(ev engine.Event) [16]byte {
	typ, pol := ev.EventType, ev.Polarity
	if typ == engine.EventCreation && ev.UserText != "" {
		typ, pol = engine.EventReinforcement, engine.Reinforce
	}
	scope, _ := json.Marshal(ev.Scope.Normalize()) // a Scope always encodes
	sum := sha256.Sum256([]byte(strings.Join([]string{string(typ), itoaPolarity(pol), ev.At.UTC().Format(time.RFC3339Nano),
		ev.UserText, ev.AgentOutput, ev.FrameID, string(scope), ev.Detail}, "\x00")))
	return [16]byte(sum[:16])
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

// ruleKeeper compares, as they stream, the file's events of a rule the
// memory has with the memory's (by digest) and, with merge, appends those
// it may and does not have, in batches: each reinforcement, counterexample
// or confirmation (and creating correction, as a reinforcement) adds its
// polarity to the memory's rule (engine.Rule.ApplyEvidence at the event's
// time), each event records the rule's α and β after it, and a
// manual_override at the import's time then says what was merged, so
// that the rule's α and β are its last event's.
type ruleKeeper struct {
	tx    *store.Tx
	rule  engine.Rule // the memory's, with the evidence merged so far
	from  engine.Rule // the memory's before
	seen  map[[16]byte]bool
	have  int // the memory's events
	merge bool
	at    time.Time
	ri    RuleImport
	batch []engine.Event
	// plus, minus and creating count what was merged: reinforcements
	// (creating: of them, corrections that created a candidate) and
	// counterexamples.
	plus, minus, creating int
}

// startKeep starts the comparison of the file's events of rule id with
// the memory's, reading the memory's a page at a time.
func startKeep(tx *store.Tx, id string, merge bool, at time.Time) (*ruleKeeper, error) {
	r, err := tx.GetRule(id)
	if err != nil {
		return nil, err
	}
	k := &ruleKeeper{tx: tx, rule: r, from: r, seen: map[[16]byte]bool{}, merge: merge, at: at,
		ri: RuleImport{RuleID: id, Outcome: RuleKept}}
	err = tx.EachEvent(id, func(ev engine.Event) error {
		k.seen[eventKey(ev)] = true
		k.have++
		return nil
	})
	return k, err
}

// event compares one event of the file with the memory's and, with
// merge, appends it when the memory lacks it and may take it; retracted
// says the file retracts it.
func (k *ruleKeeper) event(ev engine.Event, step engine.ReplayStep, retracted bool) error {
	k.ri.FileEvents++
	key := eventKey(ev)
	switch {
	case k.seen[key]:
		k.ri.Present++
		return nil
	case retracted || !mergeable(ev, step):
		return nil
	}
	k.seen[key] = true
	k.ri.Lacking++
	if !k.merge {
		return nil
	}
	if ev.EventType == engine.EventCreation {
		ev.EventType, ev.Polarity = engine.EventReinforcement, engine.Reinforce
		k.creating++
	}
	switch ev.Polarity {
	case engine.Reinforce:
		k.plus++
	case engine.Counter:
		k.minus++
	}
	if ev.Polarity != 0 {
		k.rule.ApplyEvidence(ev.Polarity, ev.At)
	}
	ev.Alpha, ev.Beta = k.rule.Alpha, k.rule.Beta
	k.ri.Merged++
	k.batch = append(k.batch, ev)
	if len(k.batch) >= importBatch {
		return k.flush()
	}
	return nil
}

func (k *ruleKeeper) flush() error {
	err := k.tx.InsertEvents(k.batch)
	clear(k.batch)
	k.batch = k.batch[:0]
	return err
}

// finish writes what is left and, when it merged events, the rule's
// evidence and the manual_override that says what was merged.
func (k *ruleKeeper) finish() (RuleImport, error) {
	ri := k.ri
	ri.NotImported = ri.FileEvents - ri.Present - ri.Merged
	ri.Events, ri.Alpha, ri.Beta = k.have, k.rule.Alpha, k.rule.Beta
	if ri.Merged == 0 {
		return ri, nil
	}
	if err := k.flush(); err != nil {
		return RuleImport{}, err
	}
	if err := k.tx.UpdateEvidence(k.rule); err != nil {
		return RuleImport{}, err
	}
	detail := fmt.Sprintf("merged %d events of an import: +%d reinforcements, +%d counterexamples (alpha %g → %g, beta %g → %g)",
		ri.Merged, k.plus, k.minus, k.from.Alpha, k.rule.Alpha, k.from.Beta, k.rule.Beta)
	if k.creating > 0 {
		detail += fmt.Sprintf("; %d of the reinforcements created the rule there", k.creating)
	}
	if _, err := k.tx.InsertEvent(&engine.Event{RuleID: k.rule.RuleID, EventType: engine.EventManualOverride, Detail: detail,
		Alpha: k.rule.Alpha, Beta: k.rule.Beta, At: atOrNow(k.at)}); err != nil {
		return RuleImport{}, err
	}
	ri.Outcome, ri.Events = RuleMerged, k.have+ri.Merged+1
	return ri, nil
}
