package memory

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// Ordinary prompts that use a rule's words are turned away by the gate and
// write nothing; every prompt, whatever characters it holds, is answered
// without an error.
func TestCaptureLeavesOrdinaryPromptsAlone(t *testing.T) {
	for name, mk := range map[string]func(t *testing.T) (*Service, func() counts){
		"lexical (cue gate)": func(t *testing.T) (*Service, func() counts) {
			s, db := MustDefaultService(t, Options{})
			return s, func() counts { return counts(MustCount(t, db)) }
		},
		"real model": func(t *testing.T) (*Service, func() counts) {
			s, db := mustRealService(t)
			return s, func() counts { return counts(MustCount(t, db)) }
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, count := mk(t)
			before := count()
			for _, text := range []string{
				"git commit",
				"Test",
				"can you add a .gitignore file",
				"add a placeholder image to the hero section until the design is ready",
				"npm run build fails with this:\r\n\x1b[31mERR!\x1b[0m Cannot find module 'vite'\r\n",
				"\x1b[2J\x00",
				"why did the test fail?",
				"start the dev server and check the login page",
			} {
				res, err := s.Capture(t.Context(), engine.Correction{UserText: text, At: t0})
				if err != nil {
					t.Fatalf("Capture(%q): %v", text, err)
				}
				if res.Action != CaptureIgnored {
					t.Errorf("Capture(%q) = %s (%+v), want ignored", text, res.Action, res.Gate)
				}
			}
			if after := count(); after != before {
				t.Errorf("ordinary prompts wrote rows: %+v → %+v", before, after)
			}
		})
	}
}

// A CORRECT[rule_id]: prompt bypasses the gate; its stored text is the
// cleaned one and the event says it was captured and cleaned.
func TestCaptureExplicitCleansAndSaysSo(t *testing.T) {
	s, db := MustDefaultService(t, Options{})
	res, err := s.Capture(t.Context(), engine.Correction{UserText: "CORRECT[tool.pnpm-not-npm]: pnpm\r\nplease \x1b[1mnot\x1b[0m npm", FrameID: "s-1", At: t0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CaptureRecorded || res.Gate.Gate != classifier.GateExplicit || res.Cleaned != 3 {
		t.Fatalf("got %+v gate %+v", res, res.Gate)
	}
	ev := lastEvent(t, db, "tool.pnpm-not-npm")
	if ev.UserText != "CORRECT[tool.pnpm-not-npm]: pnpm\nplease not npm" || !strings.Contains(ev.Detail, "captured from a prompt") || !strings.Contains(ev.Detail, "3 control characters") {
		t.Errorf("event text %q detail %q", ev.UserText, ev.Detail)
	}
}

// A correction and a standing instruction pass the real model's gate and
// are recorded on their rule, or wait in the inbox.
func TestCaptureRealModelTakesCorrections(t *testing.T) {
	s, _ := mustRealService(t)
	for _, tc := range []struct{ text, rule string }{
		{"I told you already, stop running sed -i on my source files and use the edit tool", "tool.no-sed-for-file-editing"},
		{"from now on never commit anything unless I explicitly ask you to", "tool.no-commit-without-asking"},
	} {
		res, err := s.Capture(t.Context(), engine.Correction{UserText: tc.text, At: t0})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Gate.Passed || res.Action == CaptureIgnored {
			t.Errorf("%q: %s, gate %+v, reason %q", tc.text, res.Action, res.Gate, res.Reason)
			continue
		}
		if res.Candidates[0].RuleID != tc.rule {
			t.Errorf("%q: top candidate %s, want %s", tc.text, res.Candidates[0].RuleID, tc.rule)
		}
	}
}
