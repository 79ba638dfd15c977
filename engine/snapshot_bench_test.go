package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchRules returns n active rules in one scope, a tenth of them sharing
// topics, with seeded evidence.
func benchRules(n int) []Rule {
	rng := rand.New(rand.NewPCG(1, 2))
	cats := []string{CategoryToolPreference, CategoryCodeStyle, CategoryCommunicationStyle, CategorySecurityPolicy}
	sevs := []Severity{SeverityMust, SeverityShould, SeverityStyle}
	rules := make([]Rule, n)
	for i := range rules {
		r := NewRule(fmt.Sprintf("bench.rule-%d", i), cats[i%4], sevs[i%3], "Rule text number "+fmt.Sprint(i), Scope{Project: "api"}, DefaultConfig(), t0)
		k := 5 + rng.IntN(30)
		for j := 0; j < k; j++ {
			r.ApplyEvidence(Reinforce, t0.Add(-time.Duration(rng.IntN(1000))*time.Hour))
		}
		if i%10 == 0 {
			r.Topic = fmt.Sprintf("topic-%d", i%50)
		}
		rules[i] = r
	}
	return rules
}

func BenchmarkBuildSnapshot(b *testing.B) {
	for _, n := range []int{100, 10000} {
		rules := benchRules(n)
		req := SnapshotRequest{Scope: Scope{Project: "api"}, Now: t0}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				BuildSnapshot(rules, req, DefaultConfig())
			}
		})
	}
}
