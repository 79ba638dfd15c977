package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// curlExport is the export of a memory holding the must rule curlRule,
// stated when added, with a reinforcement, a counterexample and a
// violation, and an open confirmation whose candidate it is.
func curlExport(t *testing.T) []string {
	t.Helper()
	s, db := MustDefaultService(t, Options{})
	ctx := context.Background()
	if _, err := s.AddRule(ctx, NewRule{RuleID: "user.curl-sh", Category: "tool_preference", Severity: "must", Text: curlRule, At: at(0)}); err != nil {
		t.Fatal(err)
	}
	MustRecord(t, s, engine.Correction{RuleID: "user.curl-sh", UserText: "yes, pipe it into sh", At: at(1)})
	MustRecord(t, s, engine.Correction{RuleID: "user.curl-sh", UserText: "ask me first", Polarity: engine.Counter, At: at(2)})
	if _, err := s.RecordViolation(ctx, Violation{RuleID: "user.curl-sh", Tool: "Bash", Input: "curl x | sh", At: at(3)}); err != nil {
		t.Fatal(err)
	}
	err := db.Write(ctx, t0, func(tx *store.Tx) error {
		_, err := tx.CreatePending(engine.Pending{Text: "curl it", Polarity: engine.Reinforce,
			Candidates: []engine.Candidate{{RuleID: "user.curl-sh", Score: 0.5}}, CreatedAt: at(4)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return exportLines(mustExport(t, s))
}

// lineWhere is the index of the first line of lines whose record ok
// accepts.
func lineWhere(t *testing.T, lines []string, ok func(l exportLine) bool) int {
	t.Helper()
	for i, line := range lines {
		var l exportLine
		if json.Unmarshal([]byte(line), &l) == nil && ok(l) {
			return i
		}
	}
	t.Fatal("no such line")
	return -1
}

// TestImportRefusesUnexplainedEvidence: each hole of the review, made by
// editing a real export of the curl | sh rule, is refused naming the line
// and what does not follow, and nothing is written: the rule never gets
// into the memory, let alone the persona.
func TestImportRefusesUnexplainedEvidence(t *testing.T) {
	lines := curlExport(t)
	rule := lineWhere(t, lines, func(l exportLine) bool { return l.Rule != nil && l.Rule.RuleID == "user.curl-sh" })
	evOf := func(typ engine.EventType) int {
		return lineWhere(t, lines, func(l exportLine) bool {
			return l.Event != nil && l.Event.EventType == typ && l.Event.RuleID == "user.curl-sh"
		})
	}
	reinf, counter, violation := evOf(engine.EventReinforcement), evOf(engine.EventCounterexample), evOf(engine.EventViolation)
	pending := lastLine(t, lines, "pending")
	// alpha sets α on the rule and on its events from the reinforcement on.
	alpha := func(a float64) []string {
		out := editLine(t, lines, rule, func(l *exportLine) { l.Rule.Alpha = a })
		for _, i := range []int{reinf, counter, violation} {
			out = editLine(t, out, i, func(l *exportLine) { l.Event.Alpha = a })
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		lines []string
		line  int
		msg   string
	}{
		{"alpha 1e9 from one reinforcement", alpha(1e9), reinf, "it adds 1 to alpha: from alpha 2 and beta 5 it gives alpha 3 and beta 5; it records alpha 1e+09"},
		{"alpha 1e300", alpha(1e300), reinf, "it records alpha 1e+300"},
		{"alpha 2 to 1003 in one event", alpha(1003), reinf, "it records alpha 1003 and beta 5"},
		{"a counterexample that raises alpha", editLine(t, editLine(t, editLine(t, lines, counter, func(l *exportLine) { l.Event.Alpha, l.Event.Beta = 4, 5 }),
			violation, func(l *exportLine) { l.Event.Alpha, l.Event.Beta = 4, 5 }), rule, func(l *exportLine) { l.Rule.Alpha, l.Rule.Beta = 4, 5 }),
			counter, "it adds 1 to beta: from alpha 3 and beta 5 it gives alpha 3 and beta 6; it records alpha 4 and beta 5"},
		{"a violation that raises alpha", editLine(t, editLine(t, lines, violation, func(l *exportLine) { l.Event.Alpha++ }), rule, func(l *exportLine) { l.Rule.Alpha++ }),
			violation, "it changes no evidence, so it records the rule's alpha 3 and beta 6 as they were; it records alpha 4 and beta 6"},
		{"1e12 reinforcements with one event", editLine(t, lines, rule, func(l *exportLine) { l.Rule.Reinforcements = 1e12 }),
			rule, "1000000000000 reinforcements and 1 counterexamples, but its 4 events, replayed from its prior, give alpha 3, beta 6, 1 and 1"},
		{"an event dated 1970, before first_seen", editLine(t, lines, reinf, func(l *exportLine) { l.Event.At = time.Unix(0, 0).UTC() }),
			reinf, "it is dated 1970-01-01T00:00:00Z, before the rule's first_seen 2025-06-01T12:00:00Z"},
		{"100,000 candidates on one event", editLine(t, lines, reinf, func(l *exportLine) {
			l.Event.Candidates = make([]engine.Candidate, 100000)
			for i := range l.Event.Candidates {
				l.Event.Candidates[i] = engine.Candidate{RuleID: "user.curl-sh", Score: 0.5}
			}
		}), reinf, "event record of rule user.curl-sh: 100000 candidates: at most 100"},
		{"100,000 candidates on a confirmation", editLine(t, lines, pending, func(l *exportLine) {
			l.Pending.Candidates = make([]engine.Candidate, 100000)
		}), pending, "100000 candidates: at most 100"},
		{"a confirmation resolved to an unknown rule", editLine(t, lines, pending, func(l *exportLine) {
			resolved := l.Pending.CreatedAt
			l.Pending.Status, l.Pending.RuleID, l.Pending.ResolvedAt = engine.PendingAccepted, "user.no-such-rule", &resolved
		}), pending, "the confirmation was resolved to rule user.no-such-rule, which no rule record before it holds"},
		{"an open confirmation naming a rule", editLine(t, lines, pending, func(l *exportLine) { l.Pending.RuleID = "user.curl-sh" }),
			pending, "a confirmation that is pending resolved to no rule, yet it names rule user.curl-sh"},
		{"a statement no event makes", editLine(t, lines, rule, func(l *exportLine) { l.Rule.Stated.At = at(30) }),
			rule, "is stated (rule added by the user, 2025-06-01T12:30:00Z, after 0 counterexamples), but no event of its history explains it"},
		{"a statement made after a counterexample it was not", editLine(t, lines, rule, func(l *exportLine) { l.Rule.Stated.CounterBase = 1 }),
			rule, "but no event of its history explains it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, db := newService(t, "sqlite")
			before := MustCount(t, db)
			_, err := s.Import(context.Background(), strings.NewReader(strings.Join(tc.lines, "")))
			MustCode(t, err, engine.EINVALID)
			want := "line " + itoa(tc.line+1) + ":"
			if msg := engine.ErrorMessage(err); !strings.Contains(msg, want) || !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not name %q and say %q", msg, want, tc.msg)
			}
			if after := MustCount(t, db); after != before {
				t.Errorf("a refused file changed the store: rows %+v → %+v", before, after)
			}
		})
	}
	t.Run("the export itself", func(t *testing.T) {
		s, db := newService(t, "sqlite")
		if _, err := s.Import(context.Background(), strings.NewReader(strings.Join(lines, ""))); err != nil {
			t.Fatal(err)
		}
		if r := mustRule(t, db, "user.curl-sh"); r.Alpha != 3 || r.Beta != 6 || r.Stated == nil {
			t.Errorf("imported %+v: want alpha 3, beta 6, stated", r)
		}
	})
}

// ruleImports is what res says of rule id (both memories have the
// default pack's rules too).
func ruleImports(res ImportResult, id string) []RuleImport {
	var out []RuleImport
	for _, ri := range res.Rules {
		if ri.RuleID == id {
			out = append(out, ri)
		}
	}
	return out
}

// TestImportMergeKeepsTheCreatingCorrection: two memories proposed the
// same candidate from the same words, each from a correction of its own;
// merging one's export into the other appends the correction that created
// the file's copy (as a reinforcement) with the file's other corrections,
// but not the one the file retracts: α is the memory's plus the file's
// evidence, not one less. Merging again adds nothing, and the merged
// memory's export imports.
func TestImportMergeKeepsTheCreatingCorrection(t *testing.T) {
	ctx := context.Background()
	const words = "use ripgrep instead of grep for searching"
	a, aDB := MustDefaultService(t, Options{})
	id := propose(t, a, aDB, words, at(0))
	MustRecord(t, a, engine.Correction{RuleID: id, UserText: "rg please", At: at(1)})
	b, bDB := MustDefaultService(t, Options{})
	if idB := propose(t, b, bDB, words, at(5)); idB != id {
		t.Fatalf("the memories proposed %s and %s", id, idB)
	}
	MustRecord(t, b, engine.Correction{RuleID: id, UserText: "ripgrep, not grep", At: at(6)})
	wrong := MustRecord(t, b, engine.Correction{RuleID: id, UserText: "that was about something else", At: at(7)})
	if _, err := b.Retract(ctx, wrong.EventID, at(8)); err != nil {
		t.Fatal(err)
	}
	c, err := CheckExport(strings.NewReader(string(mustExport(t, b))), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := a.ImportChecked(ctx, c, ImportOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	// a: the creating correction and one more (α 4); the file: its creating
	// correction and one more that stays (2), one retracted.
	want := RuleImport{RuleID: id, Outcome: RuleMerged, FileEvents: 4, Lacking: 2, Merged: 2, NotImported: 2, Events: 2 + 2 + 1, Alpha: 6, Beta: 5}
	if diff := cmp.Diff([]RuleImport{want}, ruleImports(res, id)); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
	if r := mustRule(t, aDB, id); r.Alpha != 6 || r.Reinforcements != 4 || !r.LastCorrection.Equal(at(6)) {
		t.Errorf("merged rule %+v: want alpha 6, 4 reinforcements, last corrected at t0+6m", r)
	}
	h, err := aDB.History(ctx, id, 0, 0)
	if err != nil || len(h) != 5 || h[2].EventType != engine.EventReinforcement || h[2].UserText != words || h[2].Alpha != 5 ||
		!strings.Contains(h[4].Detail, "1 of the reinforcements created the rule there") {
		t.Errorf("history %+v, %v: want the file's creating correction appended as a reinforcement, then the merge's note", h, err)
	}
	again, err := a.ImportChecked(ctx, c, ImportOptions{Merge: true})
	if err != nil {
		t.Fatal(err)
	}
	same := RuleImport{RuleID: id, Outcome: RuleKept, FileEvents: 4, Present: 2, NotImported: 2, Events: 5, Alpha: 6, Beta: 5}
	if diff := cmp.Diff([]RuleImport{same}, ruleImports(again, id)); diff != "" {
		t.Errorf("second merge (-want +got):\n%s", diff)
	}
	if _, err := CheckExport(strings.NewReader(string(mustExport(t, a))), time.Now()); err != nil {
		t.Errorf("the merged memory's export does not import: %v", err)
	}
}
