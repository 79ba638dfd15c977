package tenant

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// TestSharedRegistryRefusedOnce: a receiver that refuses the owner's
// version of a shared registry (its own registry already defines one of
// the rule ids) is told once, not at every check, and gets the registry
// as soon as its owner changes it into one it takes.
func TestSharedRegistryRefusedOnce(t *testing.T) {
	ctx := context.Background()
	var logs testenv.SyncBuffer
	e := newMemEnv(t, func(c *MemoriesConfig) {
		c.Shares = []Share{{Owner: Default, Name: "team", To: []string{"alice"}}}
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	reg := func(name, id, text string) []byte {
		return []byte("version: 1\nname: " + name + "\nrules:\n  - rule_id: " + id + "\n    category: tool_preference\n    severity: should\n" +
			"    template: \"" + text + "\"\n")
	}
	alice, err := e.mems.Get(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := alice.SyncRegistry(ctx, registry.Source{Name: "own", YAML: reg("own", "team.clash", "Alice's own rule")}, memory.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	// Another process syncs the owner's registry on its store.
	other, err := store.OpenWith(ctx, e.base, store.Options{Clock: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	outside := memory.New(other, lexical.New(0), memory.Options{})
	syncOutside := func(yaml []byte) {
		t.Helper()
		if _, _, err := outside.SyncRegistry(ctx, registry.Source{Name: "team", YAML: yaml}, memory.SyncOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ruleText := func(id string) string {
		t.Helper()
		v, err := alice.GetRule(ctx, id, testTime)
		if err != nil {
			t.Fatalf("alice's rule %s: %v", id, err)
		}
		return v.Text
	}
	syncOutside(reg("team", "team.clash", "The team's rule"))
	refused := shareRefusals{}
	for range 3 {
		e.mems.followSharesOnce(ctx, refused)
	}
	if n := strings.Count(logs.String(), "refuses this version"); n != 1 {
		t.Errorf("the refusal was logged %d times over 3 checks, want once:\n%s", n, logs.String())
	}
	if got := ruleText("team.clash"); !strings.Contains(got, "Alice's own rule") {
		t.Errorf("alice's own rule after the refusal: %s", got)
	}
	syncOutside(reg("team", "team.use-just", "Run tasks with just"))
	e.mems.followSharesOnce(ctx, refused)
	if got := ruleText("team.use-just"); !strings.Contains(got, "Run tasks with just") {
		t.Errorf("the owner's next version did not reach alice: %s", got)
	}
}
