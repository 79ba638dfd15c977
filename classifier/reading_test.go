package classifier

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/lexsona/lexsona/engine"
)

// kept is r as it is kept without its text: its exported figures only.
func kept(r Reading) Reading {
	k := Reading{Model: r.Model, Vector: r.Vector, Words: r.Words, Cues: r.Cues, Reversed: r.Reversed, Whole: keptSeg(r.Whole)}
	for _, c := range r.Clauses {
		k.Clauses = append(k.Clauses, keptSeg(c))
	}
	return k
}

func keptSeg(s Segment) Segment {
	return Segment{Vector: s.Vector, Addressed: s.Addressed, Terms: s.Terms, Cue: Cue{Kind: s.Cue.Kind}, Insists: s.Insists, Sides: s.Sides}
}

// A reading kept without its text is decided as the text is: the same
// band, candidates, polarity and gate verdict.
func TestCaptureReadingDecidesAsCapture(t *testing.T) {
	ctx := context.Background()
	c, _ := MustDefaultClassifier(t, Options{})
	scope := engine.Scope{AgentFamily: "claude"}
	for _, text := range []string{
		"stop using sed to edit files",
		"npm is fine for this repo",
		"add a login page to the app.\nalso stop using npm in this repo, we use pnpm",
		"why did you write a README I never asked for",
		"fix the failing test in auth.go\nand please never commit without asking me first",
		"thanks, looks good",
		"that's wrong",
	} {
		want, err := c.Capture(ctx, text, scope)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Read(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.CaptureReading(ctx, kept(r), scope)
		if err != nil {
			t.Fatal(err)
		}
		type view struct {
			Decision   string
			Polarity   engine.Polarity
			Candidates []engine.Candidate
			Gate       *GateResult
		}
		if d := cmp.Diff(view{want.Decision, want.Polarity, want.Candidates, want.Gate}, view{got.Decision, got.Polarity, got.Candidates, got.Gate}); d != "" {
			t.Errorf("%q: kept reading decides otherwise (-text +reading):\n%s", text, d)
		}
	}
}

// The gate's cues and the clauses are read from the text with its lines,
// as the gate was fitted: a prompt of many lines has many_lines set.
func TestReadKeepsLines(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	text := "first line of the task\nsecond line here\nthird line here\nfourth line here\nfifth line here\nsixth line here\nand never commit without asking me"
	r, err := c.Read(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Cues[len(r.Cues)-1]; got != 1 {
		t.Errorf("many_lines = %v, want 1", got)
	}
	if n := len(r.Clauses); n != MaxClauses {
		t.Errorf("%d clauses, want the last %d lines", n, MaxClauses)
	}
}

// A reading of another model is refused.
func TestCaptureReadingOtherModel(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	_, err := c.CaptureReading(context.Background(), Reading{Model: "other@1"}, engine.Scope{})
	if engine.ErrorCode(err) != engine.EINVALID {
		t.Fatalf("err %v, want EINVALID", err)
	}
}
