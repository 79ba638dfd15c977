package engine

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestDetectExceptionPatternCountsMatchesScopes checks that the counting
// variant proposes exactly what DetectExceptionPattern proposes from the
// scopes the counts were taken from.
func TestDetectExceptionPatternCountsMatchesScopes(t *testing.T) {
	cfg := DefaultConfig()
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	parent := NewRule("tool.no-sed", CategoryToolPreference, SeverityMust, "Never use sed", Scope{ContextTags: []string{"cli"}, ExcludeTags: []string{"legacy"}}, cfg, now)
	pool := []string{"cli", "legacy", "migration", "php", "python", "scripts"}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		var scopes []Scope
		counts := map[string]int{}
		for i := rng.IntN(12); i > 0; i-- {
			var tags []string
			for _, tag := range pool {
				if rng.IntN(3) == 0 {
					tags = append(tags, tag)
					counts[tag]++
				}
			}
			scopes = append(scopes, Scope{ContextTags: tags})
		}
		skip := map[string]bool{}
		if rng.IntN(2) == 0 {
			skip[pool[rng.IntN(len(pool))]] = true
		}
		want := DetectExceptionPattern(&parent, scopes, skip, cfg, now)
		got := DetectExceptionPatternCounts(&parent, counts, skip, cfg, now)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: counts %v skip %v:\n got %+v\nwant %+v", trial, counts, skip, got, want)
		}
	}
}
