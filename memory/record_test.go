package memory

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// TestRecordWritesWhatTheDecisionSays counts what each decision writes.
func TestRecordWritesWhatTheDecisionSays(t *testing.T) {
	// Auto only for an exact phrasing, confirm for anything close: the bands
	// are set so that each text lands where the test says, whatever the
	// lexical embedder's exact scores.
	s, db := MustDefaultService(t, bands(1, 0.3))
	evidenceKeys := []string{"active", "alpha", "beta", "candidates", "confidence", "decision", "event_id", "event_type", "polarity", "redacted", "rule_id", "score"}
	tests := []struct {
		name     string
		req      engine.Correction
		decision string
		delta    counts
		keys     []string
	}{
		{"auto_match", engine.Correction{UserText: "stop editing files with sed"}, classifier.DecisionAutoMatch, counts{Events: 1}, evidenceKeys},
		{"auto_match counterexample", engine.Correction{UserText: "stop editing files with sed", Polarity: engine.Counter,
			Scope: engine.Scope{ContextTags: []string{"scripts"}}}, classifier.DecisionAutoMatch, counts{Events: 1}, evidenceKeys},
		{"explicit by CORRECT", engine.Correction{UserText: "CORRECT[style.no-emoji]: no emoji in commit messages"}, classifier.DecisionExplicit, counts{Events: 1}, evidenceKeys},
		{"explicit by rule id", engine.Correction{UserText: "whatever you call it", RuleID: "style.no-emoji"}, classifier.DecisionExplicit, counts{Events: 1}, evidenceKeys},
		{"confirm", engine.Correction{UserText: "please quit using sed when you edit my files", FrameID: "f-1", AgentOutput: "sed -i ..."},
			classifier.DecisionConfirm, counts{Pending: 1}, []string{"candidates", "decision", "pending_id", "polarity", "redacted", "score"}},
		{"new_rule", engine.Correction{UserText: "the quokka enclosure needs repainting in teal"}, classifier.DecisionNewRule,
			counts{Rules: 1, Events: 1, Texts: 1, Embeddings: 1}, append(slices.Clone(evidenceKeys), "created_rule")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := MustCount(t, db)
			resp := MustRecord(t, s, tt.req)
			after := MustCount(t, db)
			delta := counts{after.Rules - before.Rules, after.Events - before.Events, after.Pending - before.Pending,
				after.Texts - before.Texts, after.Embeddings - before.Embeddings}
			if resp.Decision != tt.decision {
				t.Fatalf("decision %s (%v %v), want %s", resp.Decision, resp.Score, resp.Candidates, tt.decision)
			}
			if delta != tt.delta {
				t.Errorf("wrote %+v, want %+v", delta, tt.delta)
			}
			keys := jsonKeys(t, resp)
			slices.Sort(tt.keys)
			if diff := cmp.Diff(tt.keys, keys); diff != "" {
				t.Errorf("JSON keys (-want +got):\n%s", diff)
			}
			switch tt.decision {
			case classifier.DecisionAutoMatch, classifier.DecisionExplicit:
				ev := lastEvent(t, db, resp.RuleID)
				wantType := tt.req.Polarity.EventType()
				if ev.EventID != resp.EventID || ev.EventType != wantType || ev.UserText != tt.req.UserText || ev.Decision != tt.decision ||
					ev.Score == nil || *ev.Score != resp.Score || (tt.decision == classifier.DecisionAutoMatch && ev.Model == "") {
					t.Errorf("event %+v", ev)
				}
				if diff := cmp.Diff(resp.Candidates, ev.Candidates, cmpEmptyNil); diff != "" {
					t.Errorf("event candidates (-resp +event):\n%s", diff)
				}
			case classifier.DecisionConfirm:
				p, err := db.GetPending(t.Context(), resp.PendingID)
				if err != nil {
					t.Fatal(err)
				}
				if p.Text != tt.req.UserText || p.Status != engine.PendingOpen || p.FrameID != "f-1" || p.AgentOutput != "sed -i ..." ||
					p.Polarity != engine.Reinforce || len(p.Candidates) == 0 || p.Model == "" {
					t.Errorf("pending %+v", p)
				}
			case classifier.DecisionNewRule:
				r := resp.CreatedRule
				if r == nil || !strings.HasPrefix(r.RuleID, "proposed.the-quokka-enclosure-needs-repainting-in-") ||
					r.Alpha != 3 || r.Beta != 5 || r.Status != engine.StatusCandidate || r.Text != tt.req.UserText ||
					resp.EventType != engine.EventCreation || resp.RuleID != r.RuleID {
					t.Errorf("created %+v, response %+v", r, resp.RecordResult)
				}
			}
		})
	}
	// The same correction again now matches the rule it created.
	again := MustRecord(t, s, engine.Correction{UserText: "the quokka enclosure needs repainting in teal"})
	if again.Decision != classifier.DecisionAutoMatch || !strings.HasPrefix(again.RuleID, "proposed.the-quokka") || again.Score != 1 || again.Alpha != 4 {
		t.Errorf("repeating a new rule's correction: %+v %+v", again, again.RecordResult)
	}
}

var cmpEmptyNil = cmp.Transformer("emptyNil", func(c []engine.Candidate) []engine.Candidate {
	if len(c) == 0 {
		return nil
	}
	return c
})

// TestRecordBadInput: a correction the classifier or the service refuses
// is an error with its code and a message naming what was wrong, and writes
// nothing.
func TestRecordBadInput(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	before := MustCount(t, db)
	tests := []struct {
		name string
		c    engine.Correction
		code string
		says string
	}{
		{"empty", engine.Correction{UserText: ""}, engine.EINVALID, "empty"},
		{"whitespace", engine.Correction{UserText: " \t\n "}, engine.EINVALID, "empty"},
		{"invalid UTF-8", engine.Correction{UserText: "stop \xff using sed"}, engine.EINVALID, "UTF-8"},
		{"no letters", engine.Correction{UserText: "?!?! 👎"}, engine.EINVALID, "no letters"},
		{"too large", engine.Correction{UserText: strings.Repeat("a", engine.MaxUserTextLength+1)}, engine.ETOOLARGE, "at most"},
		{"bad scope", engine.Correction{UserText: "use pnpm", Scope: engine.Scope{Project: "Not Valid!"}}, engine.EINVALID, "project"},
		{"malformed CORRECT", engine.Correction{UserText: "CORRECT[Tool X]: because"}, engine.EINVALID, `"Tool X"`},
		{"unknown CORRECT", engine.Correction{UserText: "CORRECT[tool.does-not-exist]: because"}, engine.ENOTFOUND, "tool.does-not-exist"},
		{"bad polarity", engine.Correction{UserText: "use pnpm", Polarity: 2}, engine.EINVALID, "polarity"},
		{"future time", engine.Correction{UserText: "use pnpm", At: time.Now().Add(time.Hour)}, engine.EINVALID, "future"},
		{"instruction with no letters", engine.Correction{UserText: "use pnpm", Instruction: "?!"}, engine.EINVALID, "instruction has no letters"},
		{"instruction too long", engine.Correction{UserText: "use pnpm", Instruction: strings.Repeat("é", engine.MaxInstructionLength+1)}, engine.ETOOLARGE, "instruction is 501 characters"},
		{"instruction with a control character", engine.Correction{UserText: "use pnpm", Instruction: "use\x00pnpm"}, engine.EINVALID, "instruction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Record(t.Context(), tt.c)
			MustCode(t, err, tt.code)
			if !strings.Contains(engine.ErrorMessage(err), tt.says) {
				t.Errorf("message %q does not say %q", engine.ErrorMessage(err), tt.says)
			}
		})
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("bad input wrote something: %+v → %+v", before, after)
	}
}

func TestRecordUnknownExplicitWritesNothing(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	before := MustCount(t, db)
	for _, c := range []engine.Correction{
		{UserText: "CORRECT[tool.nope]: because"},
		{UserText: "use pnpm", RuleID: "tool.nope"},
		{UserText: "CORRECT[style.no-emoji]: x", RuleID: "tool.pnpm-not-npm"}, // two different rules named
	} {
		_, _, err := s.Record(t.Context(), c)
		if engine.ErrorCode(err) != engine.ENOTFOUND && engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("Record(%+v): %v", c, err)
		}
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("wrote %+v → %+v", before, after)
	}
}

// TestRecordHugeText: a 1 MB text is classified on its first KiB and stored whole.
func TestRecordHugeText(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	text := "stop editing files with sed, look at what it did:\n" + strings.Repeat("sed -i 's/foo/bar/' main.go # mangled\n", 25_000)
	resp := MustRecord(t, s, engine.Correction{UserText: text})
	var stored string
	switch resp.Decision {
	case classifier.DecisionConfirm:
		p, err := db.GetPending(t.Context(), resp.PendingID)
		if err != nil {
			t.Fatal(err)
		}
		stored = p.Text
	default:
		stored = lastEvent(t, db, resp.RuleID).UserText
	}
	if len(text) < 900_000 || stored != text {
		t.Errorf("stored %d bytes of a %d-byte text (decision %s)", len(stored), len(text), resp.Decision)
	}
	if resp.CreatedRule != nil && len(resp.CreatedRule.Text) > engine.MaxRuleTextLength {
		t.Errorf("created rule text of %d bytes", len(resp.CreatedRule.Text))
	}
}

func TestRecordIdempotent(t *testing.T) {
	s, db := MustDefaultService(t, bands(1, 0.3))
	for _, tt := range []struct {
		key, text, decision string
	}{
		{"k-auto", "stop editing files with sed", classifier.DecisionAutoMatch},
		{"k-confirm", "please quit using sed when you edit my files", classifier.DecisionConfirm},
		{"k-new", "the wombat burrow must stay dry", classifier.DecisionNewRule},
	} {
		c := engine.Correction{UserText: tt.text, IdempotencyKey: tt.key, At: t0}
		first := MustRecord(t, s, c)
		if first.Decision != tt.decision {
			t.Fatalf("%s: decision %s, want %s", tt.key, first.Decision, tt.decision)
		}
		before := MustCount(t, db)
		c.At = t0.Add(time.Hour) // a retry later is the same correction
		again, replayed, err := s.Record(t.Context(), c)
		if err != nil || !replayed {
			t.Fatalf("%s: retry replayed=%v err=%v", tt.key, replayed, err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("%s: replayed response differs (-first +again):\n%s", tt.key, diff)
		}
		c.UserText += " and more"
		_, _, err = s.Record(t.Context(), c)
		MustCode(t, err, engine.ECONFLICT)
		if after := MustCount(t, db); after != before {
			t.Errorf("%s: retries wrote %+v → %+v", tt.key, before, after)
		}
	}
}
