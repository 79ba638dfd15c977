package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// A correction said in a language the model does not read reaches its rule
// through the reporter's instruction: the instruction is classified, the
// user's words are the receipt, and the detail says how they were read.
func TestRecordClassifiesTheInstruction(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	words := "请不要再用 sed 改文件了" // "stop editing files with sed", in Chinese
	alone := MustRecord(t, s, engine.Correction{UserText: words, IdempotencyKey: "alone"})
	if alone.Decision == classifier.DecisionAutoMatch && alone.RuleID == "tool.no-sed-for-file-editing" {
		t.Fatalf("the words alone already auto-match (%v): the test shows nothing", alone.Score)
	}
	resp := MustRecord(t, s, engine.Correction{UserText: words, Instruction: "stop editing files with sed"})
	if resp.Decision != classifier.DecisionAutoMatch || resp.RuleID != "tool.no-sed-for-file-editing" {
		t.Fatalf("decision %s on %q (%v %v), want auto_match on tool.no-sed-for-file-editing", resp.Decision, resp.RuleID, resp.Score, resp.Candidates)
	}
	ev := lastEvent(t, db, resp.RuleID)
	if ev.UserText != words || !strings.Contains(ev.Detail, `reported as: "stop editing files with sed"`) {
		t.Errorf("event text %q, detail %q: want the user's words and the reading", ev.UserText, ev.Detail)
	}
}

// A correction that matches no rule proposes one whose id and text come
// from the instruction; the user's words stay the creation event's text.
func TestRecordProposesTheInstruction(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	words := "die Aufzüge im Quokka-Gehege bitte immer in Türkis streichen"
	resp := MustRecord(t, s, engine.Correction{UserText: words, Instruction: "paint the quokka enclosure lifts teal"})
	r := resp.CreatedRule
	if resp.Decision != classifier.DecisionNewRule || r == nil {
		t.Fatalf("decision %s, created %v: want a proposed rule", resp.Decision, r)
	}
	if !strings.HasPrefix(r.RuleID, "proposed.paint-the-quokka-enclosure-lifts-teal-") || r.Text != "paint the quokka enclosure lifts teal" {
		t.Errorf("proposed %s %q: want the instruction's id and text", r.RuleID, r.Text)
	}
	if ev := lastEvent(t, db, r.RuleID); ev.UserText != words {
		t.Errorf("creation event text %q, want the user's words", ev.UserText)
	}
}

// CORRECT[rule_id] in the user's words names the rule whatever the
// instruction says, and the instruction is part of what an idempotency key
// stands for.
func TestRecordInstructionExplicitAndIdempotent(t *testing.T) {
	s, _ := MustDefaultService(t, bands(1, 0.3))
	resp := MustRecord(t, s, engine.Correction{UserText: "CORRECT[style.no-emoji]: 別再用表情符號", Instruction: "stop editing files with sed"})
	if resp.Decision != classifier.DecisionExplicit || resp.RuleID != "style.no-emoji" {
		t.Errorf("decision %s on %s, want explicit on style.no-emoji", resp.Decision, resp.RuleID)
	}
	lower := MustRecord(t, s, engine.Correction{UserText: "  correct [style.no-emoji] : 別再用表情符號", Instruction: "stop editing files with sed"})
	if lower.Decision != classifier.DecisionExplicit || lower.RuleID != "style.no-emoji" {
		t.Errorf("decision %s on %s for a lower-case correct [...], want explicit on style.no-emoji", lower.Decision, lower.RuleID)
	}
	_, _, err := s.Record(t.Context(), engine.Correction{UserText: "CORRECT[style.no-emoji 表情", Instruction: "no emoji"})
	MustCode(t, err, engine.EINVALID)
	c := engine.Correction{UserText: "nie edytuj plików sedem", Instruction: "stop editing files with sed", IdempotencyKey: "k1"}
	MustRecord(t, s, c)
	c.Instruction = "stop using sed"
	_, _, err = s.Record(t.Context(), c)
	MustCode(t, err, engine.ECONFLICT)
	// White space alone is no instruction: the words are classified.
	blank := MustRecord(t, s, engine.Correction{UserText: "stop editing files with sed", Instruction: " \t "})
	if blank.Decision != classifier.DecisionAutoMatch {
		t.Errorf("decision %s with a blank instruction, want auto_match on the words", blank.Decision)
	}
}

// A correction in the confirm band keeps its instruction: a rule proposed
// from it says the instruction, and accepting it keeps how it was read.
func TestConfirmKeepsTheInstruction(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	words := "bitte hör auf, meine Dateien mit sed zu bearbeiten"
	const reading = "please quit using sed when you edit my files"
	resp := MustRecord(t, s, engine.Correction{UserText: words, Instruction: reading})
	if resp.Decision != classifier.DecisionConfirm {
		t.Fatalf("decision %s (%v), want confirm", resp.Decision, resp.Score)
	}
	p, err := db.GetPending(t.Context(), resp.PendingID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != words || p.Instruction != reading {
		t.Fatalf("pending text %q instruction %q", p.Text, p.Instruction)
	}
	out, err := s.Confirm(t.Context(), resp.PendingID, ActionNew, "", 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if r := out.CreatedRule; r == nil || r.Text != reading || !strings.HasPrefix(r.RuleID, "proposed.please-quit-using-sed-") {
		t.Errorf("proposed %+v, want the instruction's id and text", out.CreatedRule)
	}

	const words2, reading2 = "sed bitte nicht mehr für meine Dateien", "quit using sed on my files"
	resp = MustRecord(t, s, engine.Correction{UserText: words2, Instruction: reading2})
	if resp.Decision != classifier.DecisionConfirm {
		t.Fatalf("second: decision %s, want confirm", resp.Decision)
	}
	acc, err := s.Confirm(t.Context(), resp.PendingID, ActionAccept, "tool.no-sed-for-file-editing", 0, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	ev := lastEvent(t, db, acc.RuleID)
	if ev.UserText != words2 || !strings.Contains(ev.Detail, `reported as: "`+reading2+`"`) {
		t.Errorf("accepted event text %q detail %q", ev.UserText, ev.Detail)
	}
}
