package classifier

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// MustRecord records req and fails on error.
func MustRecord(tb testing.TB, c *Classifier, req RecordRequest) RecordResponse {
	tb.Helper()
	if req.At.IsZero() {
		req.At = t0
	}
	resp, replayed, err := c.Record(tb.Context(), req)
	if err != nil {
		tb.Fatalf("Record(%q): %v", req.Text, err)
	}
	if replayed {
		tb.Fatalf("Record(%q) replayed", req.Text)
	}
	return resp
}

// lastEvent returns the newest event of a rule.
func lastEvent(tb testing.TB, db *store.DB, ruleID string) engine.Event {
	tb.Helper()
	evs, err := db.History(tb.Context(), ruleID, 0, store.MaxHistoryLimit)
	if err != nil || len(evs) == 0 {
		tb.Fatalf("History(%s): %v, %d events", ruleID, err, len(evs))
	}
	return evs[len(evs)-1]
}

func jsonKeys(tb testing.TB, v any) []string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestRecordWritesWhatTheDecisionSays counts what each decision writes.
func TestRecordWritesWhatTheDecisionSays(t *testing.T) {
	// Auto only for an exact phrasing, confirm for anything close: the bands
	// are set so that each text lands where the test says, whatever the
	// lexical embedder's exact scores.
	c, db := MustDefaultClassifier(t, Options{Thresholds: &Thresholds{Auto: 1, Confirm: 0.3}})
	evidenceKeys := []string{"active", "alpha", "beta", "candidates", "confidence", "decision", "event_id", "event_type", "polarity", "redacted", "rule_id", "score"}
	tests := []struct {
		name     string
		req      RecordRequest
		decision string
		delta    counts
		keys     []string
	}{
		{"auto_match", RecordRequest{Text: "stop editing files with sed"}, DecisionAutoMatch, counts{Events: 1}, evidenceKeys},
		{"auto_match counterexample", RecordRequest{Text: "stop editing files with sed", Polarity: engine.Counter,
			Scope: engine.Scope{ContextTags: []string{"scripts"}}}, DecisionAutoMatch, counts{Events: 1}, evidenceKeys},
		{"explicit by CORRECT", RecordRequest{Text: "CORRECT[style.no-emoji]: no emoji in commit messages"}, DecisionExplicit, counts{Events: 1}, evidenceKeys},
		{"explicit by rule id", RecordRequest{Text: "whatever you call it", RuleID: "style.no-emoji"}, DecisionExplicit, counts{Events: 1}, evidenceKeys},
		{"confirm", RecordRequest{Text: "please quit using sed when you edit my files", FrameID: "f-1", AgentOutput: "sed -i ..."},
			DecisionConfirm, counts{Pending: 1}, []string{"candidates", "decision", "pending_id", "polarity", "redacted", "score"}},
		{"new_rule", RecordRequest{Text: "the quokka enclosure needs repainting in teal"}, DecisionNewRule,
			counts{Rules: 1, Events: 1, Texts: 1, Embeddings: 1}, append(slices.Clone(evidenceKeys), "created_rule")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := MustCount(t, db)
			resp := MustRecord(t, c, tt.req)
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
			case DecisionAutoMatch, DecisionExplicit:
				ev := lastEvent(t, db, resp.RuleID)
				wantType := tt.req.Polarity.EventType()
				if ev.EventID != resp.EventID || ev.EventType != wantType || ev.UserText != tt.req.Text || ev.Decision != tt.decision ||
					ev.Score == nil || *ev.Score != resp.Score || (tt.decision == DecisionAutoMatch && ev.Model == "") {
					t.Errorf("event %+v", ev)
				}
				if diff := cmp.Diff(resp.Candidates, ev.Candidates, cmpEmptyNil); diff != "" {
					t.Errorf("event candidates (-resp +event):\n%s", diff)
				}
			case DecisionConfirm:
				p, err := db.GetPending(t.Context(), resp.PendingID)
				if err != nil {
					t.Fatal(err)
				}
				if p.Text != tt.req.Text || p.Status != engine.PendingOpen || p.FrameID != "f-1" || p.AgentOutput != "sed -i ..." ||
					p.Polarity != engine.Reinforce || len(p.Candidates) == 0 || p.Model == "" {
					t.Errorf("pending %+v", p)
				}
			case DecisionNewRule:
				r := resp.CreatedRule
				if r == nil || !strings.HasPrefix(r.RuleID, "proposed.the-quokka-enclosure-needs-repainting-in-") ||
					r.Alpha != 3 || r.Beta != 5 || r.Status != engine.StatusCandidate || r.Text != tt.req.Text ||
					resp.EventType != engine.EventCreation || resp.RuleID != r.RuleID {
					t.Errorf("created %+v, response %+v", r, resp.RecordResult)
				}
			}
		})
	}
	// The same correction again now matches the rule it created.
	again := MustRecord(t, c, RecordRequest{Text: "the quokka enclosure needs repainting in teal"})
	if again.Decision != DecisionAutoMatch || !strings.HasPrefix(again.RuleID, "proposed.the-quokka") || again.Score != 1 || again.Alpha != 4 {
		t.Errorf("repeating a new rule's correction: %+v %+v", again, again.RecordResult)
	}
}

var cmpEmptyNil = cmp.Transformer("emptyNil", func(c []engine.Candidate) []engine.Candidate {
	if len(c) == 0 {
		return nil
	}
	return c
})

func TestRecordUnknownExplicitWritesNothing(t *testing.T) {
	c, db := MustDefaultClassifier(t, Options{})
	before := MustCount(t, db)
	for _, req := range []RecordRequest{
		{Text: "CORRECT[tool.nope]: because"},
		{Text: "use pnpm", RuleID: "tool.nope"},
		{Text: "CORRECT[style.no-emoji]: x", RuleID: "tool.pnpm-not-npm"}, // two different rules named
	} {
		_, _, err := c.Record(t.Context(), req)
		if engine.ErrorCode(err) != engine.ENOTFOUND && engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("Record(%+v): %v", req, err)
		}
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("wrote %+v → %+v", before, after)
	}
}

// TestRecordHugeText: a 1 MB text is classified on its first KiB and stored whole.
func TestRecordHugeText(t *testing.T) {
	c, db := MustDefaultClassifier(t, Options{})
	text := "stop editing files with sed, look at what it did:\n" + strings.Repeat("sed -i 's/foo/bar/' main.go # mangled\n", 25_000)
	resp := MustRecord(t, c, RecordRequest{Text: text})
	var stored string
	switch resp.Decision {
	case DecisionConfirm:
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
	c, db := MustDefaultClassifier(t, Options{Thresholds: &Thresholds{Auto: 1, Confirm: 0.3}})
	for _, tt := range []struct {
		key, text, decision string
	}{
		{"k-auto", "stop editing files with sed", DecisionAutoMatch},
		{"k-confirm", "please quit using sed when you edit my files", DecisionConfirm},
		{"k-new", "the wombat burrow must stay dry", DecisionNewRule},
	} {
		req := RecordRequest{Text: tt.text, IdempotencyKey: tt.key, At: t0}
		first := MustRecord(t, c, req)
		if first.Decision != tt.decision {
			t.Fatalf("%s: decision %s, want %s", tt.key, first.Decision, tt.decision)
		}
		before := MustCount(t, db)
		req.At = t0.Add(time.Hour) // a retry later is the same request
		again, replayed, err := c.Record(t.Context(), req)
		if err != nil || !replayed {
			t.Fatalf("%s: retry replayed=%v err=%v", tt.key, replayed, err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("%s: replayed response differs (-first +again):\n%s", tt.key, diff)
		}
		req.Text += " and more"
		_, _, err = c.Record(t.Context(), req)
		MustCode(t, err, engine.ECONFLICT)
		if after := MustCount(t, db); after != before {
			t.Errorf("%s: retries wrote %+v → %+v", tt.key, before, after)
		}
	}
}
