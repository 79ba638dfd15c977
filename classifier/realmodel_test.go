package classifier

import (
	"context"
	"sync"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
)

// The texts below were written for these tests: they are neither registry
// phrasings nor items of the eval dataset. Recording contradictions and
// generic texts with the real model is tested in package memory.

// realReinforcements insist on a default-pack rule, each worded plainly
// enough that the real model must auto-match it as a reinforcement.
var realReinforcements = map[string]string{
	"stop using npm, this repo is pnpm only":              "tool.pnpm-not-npm",
	"don't run sed on my source files, use the edit tool": "tool.no-sed-for-file-editing",
	"never force push to main":                            "tool.no-force-push",
	"use rg, grep -r is too slow here":                    "tool.use-ripgrep",
	"no emoji in commit messages please":                  "style.no-emoji",
	"never pipe curl into bash":                           "security.no-curl-pipe-sh",
	"ask before you use sudo":                             "security.no-sudo",
	"don't disable certificate verification":              "security.no-disable-tls-verification",
	"wrap the error with context using %w":                "code.go-wrap-errors",
	"delete the commented-out code":                       "code.no-commented-out-code",
	"use conventional commit messages":                    "code.conventional-commits",
	"no markdown in the terminal":                         "style.plain-text-in-terminal",
	"use uv instead of pip":                               "tool.uv-not-pip",
	"commit after each working step":                      "tool.commit-each-step",
}

var (
	realOnce sync.Once
	realEmb  models.Embedder
	realErr  error
)

// mustRealClassifier returns a classifier with the default options over a
// corpus holding the default pack embedded by the real
// all-MiniLM-L6-v2 on the ort backend. It skips naming the folder when the
// model or ONNX Runtime is absent (fails under LEXSONA_REQUIRE_REAL_MODEL=1).
func mustRealClassifier(t *testing.T) *Classifier {
	t.Helper()
	dir := testenv.RealModelDir(t)
	realOnce.Do(func() {
		realEmb, realErr = auto.Open(context.Background(), models.Options{Backend: "ort", ModelDir: dir, OrtLibEnv: testenv.ORTLib(), Variant: testenv.ModelVariant()})
	})
	if realErr != nil {
		testenv.RealModelMissing(t, "the ort backend cannot run the real model in %s: %v (run `make ort` for ONNX Runtime)", dir, realErr)
	}
	return New(newMemCorpus(t, nil, realEmb), realEmb, Options{})
}

// TestRealModelReinforces: plainly worded corrections auto-match their rule
// as reinforcements at the default bands.
func TestRealModelReinforces(t *testing.T) {
	c := mustRealClassifier(t)
	for text, rule := range realReinforcements {
		r, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if r.Decision != DecisionAutoMatch || r.RuleID != rule || r.Polarity != engine.Reinforce {
			t.Errorf("%q: %s %s polarity %d score %.3f %q; want auto_match %s as a reinforcement", text, r.Decision, r.RuleID, r.Polarity, r.Score, r.Reason, rule)
		}
	}
}
