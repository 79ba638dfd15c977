package eval

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/registry"
)

// mustStream loads the built-in prompt stream against the default pack.
func mustStream(t *testing.T) []StreamItem {
	t.Helper()
	reg := registry.Default()
	items, err := ShippedStream(func(id string) bool { _, _, ok := reg.Lookup(id); return ok })
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// The stream has what the gate's and the hook's measures need: at least
// 2,000 ordinary prompts and 400 corrections, both splits holding every
// kind, every rule of the pack corrected, and prompts in the voices the
// dataset promises (short ones, pasted output, rule words in tasks).
func TestShippedStreamComposition(t *testing.T) {
	items := mustStream(t)
	reg := registry.Default()
	count := map[string]map[string]int{"dev": {}, "test": {}}
	rules := map[string]int{}
	short, pasted, collide := 0, 0, 0
	ruleWords := []string{"commit", "test", "push", "npm", "placeholder", "markdown", "readme", "error", "emoji", "mock", "docs", "server", "sudo", "todo"}
	for _, it := range items {
		count[it.Split][caseOf(it)]++
		if it.RuleID() != "" {
			rules[it.RuleID()]++
		}
		if it.IsCorrection() {
			continue
		}
		if len(strings.Fields(it.Text)) <= 3 {
			short++
		}
		if strings.Count(it.Text, "\n") >= 3 {
			pasted++
		}
		lower := strings.ToLower(it.Text)
		for _, w := range ruleWords {
			if strings.Contains(lower, w) {
				collide++
				break
			}
		}
	}
	ordinary := count["dev"][CaseOrdinary] + count["test"][CaseOrdinary]
	corrections := len(items) - ordinary
	t.Logf("%d ordinary prompts, %d corrections; per split %v; short %d, multi-line %d, rule words %d", ordinary, corrections, count, short, pasted, collide)
	if ordinary < 2000 || corrections < 400 {
		t.Errorf("%d ordinary prompts and %d corrections: want at least 2,000 and 400", ordinary, corrections)
	}
	for split, c := range count {
		for _, k := range []string{CaseOrdinary, CaseRule, CaseAgreement, CaseContradiction, CaseNoRule} {
			if c[k] < 10 {
				t.Errorf("%s split has %d items of kind %q: want at least 10", split, c[k], k)
			}
		}
	}
	for _, d := range reg.Definitions() {
		if rules[d.Rule.RuleID] < 2 {
			t.Errorf("rule %s is corrected %d times in the stream: want at least 2", d.Rule.RuleID, rules[d.Rule.RuleID])
		}
	}
	if short < ordinary/20 || pasted < ordinary/20 || collide < ordinary/10 {
		t.Errorf("short %d, pasted %d, with rule words %d of %d ordinary prompts: the stream lost its variety", short, pasted, collide, ordinary)
	}
}

// No writer is on both sides of the split, and no prompt of the held-out
// split nearly repeats one of dev (word 3-gram overlap of 0.8 or more).
func TestShippedStreamSplitHoldsOut(t *testing.T) {
	items := mustStream(t)
	writers := map[string]string{}
	grams := func(s string) map[string]bool {
		w := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
		out := map[string]bool{}
		for i := 0; i+3 <= len(w); i++ {
			out[strings.Join(w[i:i+3], " ")] = true
		}
		return out
	}
	var dev []map[string]bool
	for _, it := range items {
		if s, ok := writers[it.Writer]; ok && s != it.Split {
			t.Fatalf("writer %s is in both splits", it.Writer)
		}
		writers[it.Writer] = it.Split
		if it.Split == "dev" {
			dev = append(dev, grams(it.Text))
		}
	}
	near := 0
	for _, it := range SplitStream(items, "test") {
		g := grams(it.Text)
		if len(g) < 6 { // a short stock phrase ("is the test wrong or the code") may recur
			continue
		}
		for _, d := range dev {
			shared := 0
			for k := range g {
				if d[k] {
					shared++
				}
			}
			if shared*5 >= 4*min(len(g), len(d)) && len(d) >= 6 {
				near++
				t.Errorf("%s nearly repeats a dev prompt: %q", it.ID, it.Text)
				break
			}
		}
	}
}

// No correction of the stream repeats six words running of a registry
// template, example or contrary phrasing: the stream was written apart from
// the pack it is scored on (four-word stock phrases such as "you're
// absolutely right" or "please don't use" are what people say, and may
// recur).
func TestShippedStreamPhrasing(t *testing.T) {
	const phrasingRun = 6
	reg := registry.Default()
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
	}
	known := map[string]string{}
	add := func(text, src string) {
		w := words(text)
		for i := 0; i+phrasingRun <= len(w); i++ {
			known[strings.Join(w[i:i+phrasingRun], " ")] = src
		}
	}
	for _, d := range reg.Definitions() {
		add(d.Rule.Text, d.Rule.RuleID+" template")
		for _, ex := range d.Examples {
			add(ex, d.Rule.RuleID+" example")
		}
		for _, c := range reg.Contrary(d.Rule.RuleID) {
			add(c, d.Rule.RuleID+" contrary phrasing")
		}
	}
	for _, it := range mustStream(t) {
		if !it.IsCorrection() {
			continue
		}
		w := words(it.Text)
		for i := 0; i+phrasingRun <= len(w); i++ {
			if src, ok := known[strings.Join(w[i:i+phrasingRun], " ")]; ok {
				t.Errorf("%s %q shares %q with the %s", it.ID, it.Text, strings.Join(w[i:i+phrasingRun], " "), src)
				break
			}
		}
	}
}
