package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TestCaptureIsReviewFirst: a captured correction past the gate becomes one
// inbox suggestion and never evidence, even in the automatic band; its
// repeats raise the suggestion's count; nothing it leaves is in a persona.
func TestCaptureIsReviewFirst(t *testing.T) {
	s, db := mustRealService(t)
	text := "I told you already, stop running sed -i on my source files and use the edit tool"
	before := mustRule(t, db, "tool.no-sed-for-file-editing")
	var first int64
	for i := 0; i < 3; i++ {
		res, err := s.Capture(t.Context(), engine.Correction{UserText: text, FrameID: "s-1", Scope: engine.Scope{Project: "web"}, At: t0.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != CapturePending || res.RecordResult != nil {
			t.Fatalf("capture %d: %s (%+v), want one pending suggestion and no evidence", i, res.Action, res.RecordResult)
		}
		if i == 0 {
			first = res.PendingID
		} else if res.PendingID != first || !res.Merged {
			t.Errorf("repeat %d: suggestion %d merged %v, want %d merged", i, res.PendingID, res.Merged, first)
		}
	}
	p, err := db.GetPending(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	if p.Seen != 3 || p.Gate == nil || p.Candidates[0].RuleID != "tool.no-sed-for-file-editing" {
		t.Errorf("suggestion seen %d gate %v top %v", p.Seen, p.Gate, p.Candidates)
	}
	if after := mustRule(t, db, "tool.no-sed-for-file-editing"); after.Alpha != before.Alpha || after.Beta != before.Beta {
		t.Errorf("captured prompts left evidence: α/β %v/%v → %v/%v", before.Alpha, before.Beta, after.Alpha, after.Beta)
	}
}

// TestCaptureIgnoresPastes: a pasted log or trace with a question proposes
// nothing, and what is stored of a long prompt is bounded prose.
func TestCaptureIgnoresPastes(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	trace := "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nValueError: bad value\n"
	log := strings.Repeat("2026-11-02 10:00:01 ERROR connection refused by db:5432\n", 4000)
	before := MustCount(t, db)
	for _, text := range []string{log, trace + strings.Repeat(trace, 50), log + "\n???"} {
		res, err := s.Capture(t.Context(), engine.Correction{UserText: text, At: t0})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != CaptureIgnored || res.Pasted == 0 {
			t.Errorf("a paste was %s (pasted %d, reason %q)", res.Action, res.Pasted, res.Reason)
		}
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("pastes wrote rows: %+v → %+v", before, after)
	}
}

// TestCaptureInboxBudget: a short session leaves at most inbox.session_min
// open suggestions (its share, inbox.share, is below one); a more likely
// one replaces the least likely.
func TestCaptureInboxBudget(t *testing.T) {
	s, db := mustRealService(t)
	texts := []string{
		"I told you already, stop running sed -i on my source files and use the edit tool",
		"from now on never commit anything unless I explicitly ask you to",
		"stop adding emoji to every message, I have asked you before",
	}
	var open int
	for i, text := range texts {
		if _, err := s.Capture(t.Context(), engine.Correction{UserText: text, FrameID: "s-budget", At: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := db.ListPending(t.Context(), engine.PendingOpen, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.FrameID == "s-budget" {
			open++
		}
	}
	if open != 1 {
		t.Errorf("%d open suggestions from one session, want 1 (inbox.session_min)", open)
	}
}

// TestCaptureRememberStates: "remember: …" states a rule at once: the one
// it matches, or a new rule of the user's words, filed and in the persona.
func TestCaptureRememberStates(t *testing.T) {
	s, db := mustRealService(t)
	res, err := s.Capture(t.Context(), engine.Correction{UserText: "remember: run make lint before every commit in this repository",
		Scope: engine.Scope{Project: "web"}, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CaptureStated && res.Action != CaptureRecorded {
		t.Fatalf("remember: gave %s (%q)", res.Action, res.Reason)
	}
	id := res.RuleID
	r := mustRule(t, db, id)
	if r.Stated == nil || r.Stated.By != engine.StatedRemember || strings.HasPrefix(id, "proposed.") {
		t.Fatalf("rule %s stated %+v", id, r.Stated)
	}
	snap, err := s.Persona(t.Context(), PersonaRequest{Scope: engine.Scope{Project: "web"}, Now: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap.Prompt, "["+id+"]") || !strings.Contains(snap.Prompt, "stated by the user") {
		t.Errorf("persona lacks the stated rule %s:\n%s", id, snap.Prompt)
	}
}
