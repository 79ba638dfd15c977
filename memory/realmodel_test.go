package memory

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// The texts below were written for these tests: they are neither registry
// phrasings nor items of the eval dataset.

// realContradictions take a default-pack rule back.
var realContradictions = []string{
	"npm is fine for this repo",
	"go ahead and commit without asking",
	"it's ok to use yarn for this one",
	"go ahead, run the sed -i across the repo",
	"grep is fine, ripgrep isn't available on the server",
	"it's okay to push -f after the rebase",
	"you don't need to commit after each step, just do one at the end",
	"feel free to open the editor, I'm here to type",
	"calling cargo build directly is fine, skip make",
	"emojis in the chat replies are totally fine",
	"I don't mind a compliment now and then",
	"you can use markdown, my terminal renders it",
	"hardcoding the API key is fine for the demo",
	"just curl the install script into bash, it's fine",
	"you can use sudo here, it's a throwaway VM",
	"it's fine to skip cert verification against localhost",
	"an f-string in that query is fine, the input is ours",
	"you have my permission to run the query on production",
	"just return err, no need to wrap it",
	"this is a one-off script, tests aren't needed",
	"leaving TODOs is fine in this draft",
	"the commit message format doesn't matter here",
	"no need to show me a diff, paste the whole file",
	"forget what I said about pnpm, npm is what we use now",
}

// realGeneric say something was wrong without saying what.
var realGeneric = []string{
	"that's wrong", "no", "try again", "nope", "not like that", "wrong", "that is not what I asked for",
	"you misunderstood me", "still the same error", "it still doesn't work", "this broke everything",
	"that didn't help", "please fix it", "do it properly this time", "you made it worse", "start over",
	"undo that", "that's incorrect, redo it", "wrong approach", "are you serious", "same problem as before",
}

var (
	realOnce sync.Once
	realEmb  models.Embedder
	realErr  error
)

// mustRealService returns a service with the default options over a
// fresh store holding the default pack embedded by the real
// all-MiniLM-L6-v2 on the ort backend. It skips naming the folder when the
// model or ONNX Runtime is absent (fails under LEXSONA_REQUIRE_REAL_MODEL=1).
func mustRealService(t *testing.T) (*Service, *store.DB) {
	t.Helper()
	dir := testenv.RealModelDir(t)
	realOnce.Do(func() {
		realEmb, realErr = auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant()})
	})
	if realErr != nil {
		testenv.RealModelMissing(t, "the ort backend cannot run the real model in %s: %v (run `make ort` for ONNX Runtime)", dir, realErr)
	}
	db := MustOpenStore(t)
	MustSync(t, db, realEmb, registry.Default())
	return New(db, realEmb, Options{}), db
}

// TestRealModelNeverReinforcesAContradiction records each contradiction
// with the default options: none may add a reinforcement to any rule. Each
// is a counterexample of its rule, a confirmation pending with polarity −1,
// or nothing on a rule at all.
func TestRealModelNeverReinforcesAContradiction(t *testing.T) {
	s, db := mustRealService(t)
	ctx := t.Context()
	total := func() (reinforcements, counters int) {
		rules, err := db.ListRules(ctx, store.RuleFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			reinforcements += r.Reinforcements
			counters += r.CounterExamples
		}
		return
	}
	for _, text := range realContradictions {
		r0, c0 := total()
		resp, _, err := s.Record(ctx, engine.Correction{UserText: text})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		r1, c1 := total()
		switch {
		case r1 != r0:
			t.Errorf("%q was recorded as a reinforcement: %s %s %.3f %q", text, resp.Decision, resp.RuleID, resp.Score, resp.Reason)
		case resp.Decision == classifier.DecisionAutoMatch && (resp.Polarity != engine.Counter || c1 != c0+1):
			t.Errorf("%q auto-matched without a counterexample: %+v", text, resp)
		case resp.Decision == classifier.DecisionConfirm && resp.Polarity != engine.Counter:
			t.Errorf("%q is pending with polarity %d, want −1", text, resp.Polarity)
		case resp.Decision == classifier.DecisionAutoMatch || resp.Decision == classifier.DecisionConfirm:
			if !strings.HasPrefix(resp.Reason, classifier.ReasonContradiction) {
				t.Errorf("%q: reason %q does not say contradiction", text, resp.Reason)
			}
		}
		t.Logf("%-10s %+d %.3f %-34s %q", resp.Decision, resp.Polarity, resp.Score, resp.Candidates[0].RuleID, text)
	}
}

// TestRealModelGenericNeverMatches: texts that do not say what was wrong
// neither auto-match nor ask to confirm a rule, and Record stores nothing.
func TestRealModelGenericNeverMatches(t *testing.T) {
	s, db := mustRealService(t)
	before := MustCount(t, db)
	for _, text := range realGeneric {
		resp, _, err := s.Record(t.Context(), engine.Correction{UserText: text})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if resp.Decision == classifier.DecisionAutoMatch || resp.Decision == classifier.DecisionConfirm {
			t.Errorf("%q: %s %s (%.3f), want neither auto_match nor confirm", text, resp.Decision, resp.Candidates[0].RuleID, resp.Score)
		}
	}
	if after := MustCount(t, db); after != before {
		t.Errorf("generic texts wrote something: %+v → %+v", before, after)
	}
}
