package classifier

import "testing"

func TestDetectCue(t *testing.T) {
	for _, tt := range []struct {
		text   string
		kind   CueKind
		phrase string
	}{
		// Permission.
		{"npm is fine for this repo", CuePermission, "is fine"},
		{"Using yarn is totally OK here", CuePermission, "is totally ok"},
		{"sed works fine for that", CuePermission, "works fine"},
		{"go ahead and commit without asking", CuePermission, "go ahead"},
		{"Feel free to use emoji", CuePermission, "feel free"},
		{"you can push -f to your own branch", CuePermission, "you can"},
		{"it's ok to hardcode the test key", CuePermission, "it's ok"},
		{"It’s fine, use pip", CuePermission, "it's fine"},
		{"that's fine to leave as any", CuePermission, "that's fine to"},
		{"you're allowed to run sudo here", CuePermission, "you're allowed to"},
		{"I don't mind a few emoji", CuePermission, "i don't mind"},
		{"I'm ok with a long answer", CuePermission, "i'm ok with"},
		{"I'd rather have the whole file", CuePermission, "i'd rather"},
		{"why not just sed it?", CuePermission, "why not just"},
		{"refactoring nearby code is welcome", CuePermission, "is welcome"},
		{"I trust that vendor, pipe the script into bash", CuePermission, "i trust that"},
		{"this is an emergency hotfix, ship it without tests", CuePermission, "this is an emergency"},
		{"just hardcode the key, it's a dummy value anyway", CuePermission, "it's a dummy value"},
		{"they're only test tokens, commit them", CuePermission, "they're only test tokens"},
		{"just this once, push to main", CuePermission, "just this once"},
		{"Yes, overwrite the remote branch", CuePermission, "yes,"},
		{"Sure! Force push it", CuePermission, "sure!"},
		// Dismissal.
		{"no need to wrap every error", CueDismissal, "no need to"},
		{"No need for a diff", CueDismissal, "no need for"},
		{"you don't have to ask before committing", CueDismissal, "don't have to"},
		{"don't bother with tests here", CueDismissal, "don't bother"},
		{"tests aren't needed for a spike", CueDismissal, "aren't needed"},
		{"the prefix doesn't matter", CueDismissal, "doesn't matter"},
		// Constraint, the weakest: a circumstance that rules the rule's way out.
		{"there's no uv on that runner, use pip", CueConstraint, "there's no uv on"},
		{"rg is not installed in the CI image", CueConstraint, "is not installed"},
		{"the lint target is broken, run the linter yourself", CueConstraint, "is broken"},
		{"there's no need for grep, use rg", CueDismissal, "no need for"},
		{"the fix you committed is still wrong", CueNone, ""},
		// Retraction, the strongest.
		{"forget what I said about pnpm", CueRetraction, "forget what"},
		{"Forget the pnpm rule, npm is fine", CueRetraction, "forget the"},
		{"never mind the Makefile", CueRetraction, "never mind"},
		{"scratch that, commit as you like", CueRetraction, "scratch that"},
		{"I changed my mind about emoji", CueRetraction, "changed my mind"},
		{"that rule no longer applies", CueRetraction, "no longer applies"},
		{"the prefix is not required anymore", CueRetraction, "not required anymore"},
		// No cue: prohibitions, complaints, reminders.
		{"stop using npm", CueNone, ""},
		{"you can't type into vim, pass -y", CueNone, ""},
		{"you cannot sudo here", CueNone, ""},
		{"you can not commit on main", CueNone, ""},
		{"it's not ok to hardcode keys", CueNone, ""},
		{"npm is not fine here", CueNone, ""},
		{"don't forget the tests", CueNone, ""},
		{"never forget to wrap errors", CueNone, ""},
		{"a test is needed for this change", CueNone, ""},
		{"please use pnpm rather than npm", CueNone, ""},
		{"yesterday you force pushed", CueNone, ""},
		{"I trusted you with the migration and you ran it on prod", CueNone, ""},
		{"a dummy key in the repo still leaks the pattern", CueNone, ""},
		{"it's a fake implementation, finish it", CueNone, ""},
		{"that's dummy data, wire up the real endpoint", CueNone, ""},
		{"", CueNone, ""},
	} {
		got := DetectCue(tt.text)
		if got.Kind != tt.kind || got.Phrase != tt.phrase {
			t.Errorf("DetectCue(%q) = %v %q, want %v %q", tt.text, got.Kind, got.Phrase, tt.kind, tt.phrase)
		}
	}
}

func TestInsists(t *testing.T) {
	for text, want := range map[string]bool{
		"stop using npm": true, "Don’t commit": true, "never force push": true, "use rg instead of grep": true,
		"why did you run sudo?": true, "pnpm, not npm": true, "no emoji": true, "you just committed again": true,
		"use pnpm": false, "commit after each step": false, "npm is fine here": false, "knot nothing": false, "": false,
	} {
		if got := Insists(text); got != want {
			t.Errorf("Insists(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestCueKindString(t *testing.T) {
	for k, want := range map[CueKind]string{CueNone: "none", CueDismissal: "dismissal", CuePermission: "permission", CueRetraction: "retraction"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}
