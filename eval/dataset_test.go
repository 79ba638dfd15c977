package eval

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

// The shipped dataset's size: the paper's 200-item composition grown, with
// the contradictions on top.
const (
	minShippedItems      = 400
	minContradictions    = 40
	minContradictedRules = 10 // contradictions are spread over the pack, not about a few rules
)

func TestShippedDatasetComposition(t *testing.T) {
	d := MustShipped(t)
	n := d.Count()
	t.Logf("%d items: %v", len(d.Items), n)
	if len(d.Items) < minShippedItems {
		t.Errorf("%d items, want at least %d", len(d.Items), minShippedItems)
	}
	if n[KindContradiction] < minContradictions {
		t.Errorf("%d contradiction items, want at least %d", n[KindContradiction], minContradictions)
	}
	for i, k := range PaperKinds {
		if n[k] < Paper.Counts[i] {
			t.Errorf("%d %s items, want at least the paper's %d", n[k], k, Paper.Counts[i])
		}
	}
	if !d.HasSplits() {
		t.Fatal("the shipped dataset has no dev/test split")
	}
	perRule := map[string]int{}
	splits := map[string]map[string]int{}
	bySplit := map[string]int{}
	contradicted := map[string]map[string]bool{SplitDev: {}, SplitTest: {}}
	for _, it := range d.Items {
		if splits[it.Kind] == nil {
			splits[it.Kind] = map[string]int{}
		}
		splits[it.Kind][it.Split]++
		switch it.Kind {
		case KindMatch:
			perRule[it.Expected]++
			bySplit[it.Expected+"/"+it.Split]++
		case KindContradiction:
			contradicted[it.Split][it.Expected] = true
		}
	}
	for _, def := range registry.Default().Definitions() {
		id := def.Rule.RuleID
		if perRule[id] < 4 {
			t.Errorf("rule %s has %d match items, want at least 4", id, perRule[id])
		}
		if bySplit[id+"/dev"] == 0 || bySplit[id+"/test"] == 0 {
			t.Errorf("rule %s has match items in only one split", id)
		}
	}
	for kind, s := range splits {
		if d := s[SplitDev] - s[SplitTest]; d < -1 || d > 1 {
			t.Errorf("%s items split %d dev / %d test: want half and half", kind, s[SplitDev], s[SplitTest])
		}
	}
	for split, rules := range contradicted {
		if len(rules) < minContradictedRules {
			t.Errorf("the %s split's contradictions are about %d rules, want at least %d", split, len(rules), minContradictedRules)
		}
	}
}

// TestShippedDatasetHeldOut checks that the test split is held out from
// everything that could be tuned: no text is repeated within the dataset
// (so none is in both splits), and no test item's content words are exactly
// those of a registry template, example or contrary phrasing (a registry
// text written from a held-out item would grade memorisation).
func TestShippedDatasetHeldOut(t *testing.T) {
	d := MustShipped(t)
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	words := func(s string) string {
		ws := map[string]bool{}
		for _, w := range classifier.ContentWords(s) {
			ws[classifier.Stem(w)] = true
		}
		keys := slices.Sorted(maps.Keys(ws))
		return strings.Join(keys, " ")
	}
	reg := map[string]string{}
	pack := registry.Default()
	for _, def := range pack.Definitions() {
		for _, text := range slices.Concat([]string{def.Rule.Text}, def.Examples, pack.Contrary(def.Rule.RuleID)) {
			if w := words(text); strings.Contains(w, " ") { // two content words or more
				reg[w] = def.Rule.RuleID + ": " + text
			}
		}
	}
	seen := map[string]Item{}
	for _, it := range d.Items {
		if prev, ok := seen[norm(it.Text)]; ok {
			t.Errorf("%s (line %d, %s) repeats %s (line %d, %s): %q", it.ID, it.Line, it.Split, prev.ID, prev.Line, prev.Split, it.Text)
		}
		seen[norm(it.Text)] = it
		if src, ok := reg[words(it.Text)]; ok && it.Split == SplitTest {
			t.Errorf("held-out %s (line %d) %q has the content words of registry text %q", it.ID, it.Line, it.Text, src)
		}
	}
}

// TestShippedDatasetPhrasing checks that at least a third of the match items
// share at most one content word with their rule's template, and that no text
// repeats a registry template, example or contrary phrasing (that would grade
// memorisation).
func TestShippedDatasetPhrasing(t *testing.T) {
	d := MustShipped(t)
	reg := registry.Default()
	tmpl := templates(reg)
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	known := map[string]string{}
	for _, def := range reg.Definitions() {
		known[norm(def.Rule.Text)] = def.Rule.RuleID + " template"
		for _, ex := range def.Examples {
			known[norm(ex)] = def.Rule.RuleID + " example"
		}
		for _, c := range reg.Contrary(def.Rule.RuleID) {
			known[norm(c)] = def.Rule.RuleID + " contrary phrasing"
		}
	}
	low, match := 0, 0
	for _, it := range d.Items {
		if src, ok := known[norm(it.Text)]; ok {
			t.Errorf("%s (line %d) %q repeats the %s", it.ID, it.Line, it.Text, src)
		}
		if it.Kind != KindMatch {
			continue
		}
		match++
		shared := SharedContentWords(it.Text, tmpl[it.Expected])
		if len(shared) <= LowOverlapMax {
			low++
		}
		t.Logf("%s shares %d %v: %q", it.ID, len(shared), shared, it.Text)
	}
	frac := float64(low) / float64(match)
	t.Logf("low-overlap match items: %d of %d (%.0f%%)", low, match, 100*frac)
	if 3*low < match {
		t.Errorf("%d of %d match items share at most %d content word with their template: want at least a third", low, match, LowOverlapMax)
	}
}

func TestSharedContentWords(t *testing.T) {
	for _, tc := range []struct {
		text, template string
		want           int
	}{
		{"stop editing files with sed", "Never use sed, awk or perl one-liners to edit files", 3}, // edit, file, sed
		{"no more commits", "Do not create, amend or squash git commits unless I ask", 1},
		{"you committed again", "Commit after each step", 1},
		{"that's wrong", "Never use sed to edit files", 0},
	} {
		if got := SharedContentWords(tc.text, tc.template); len(got) != tc.want {
			t.Errorf("SharedContentWords(%q, %q) = %v, want %d words", tc.text, tc.template, got, tc.want)
		}
	}
}

func TestParseDatasetProblems(t *testing.T) {
	ok := `{"id":"x1","text":"stop using sed","expected":"tool.no-sed-for-file-editing","kind":"match","acceptable":["tool.no-sed-for-file-editing"]}`
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // each must appear in the error
	}{
		{"not JSON", []string{ok, `{"id": "x2",`}, []string{"test.jsonl:2: not a valid item"}},
		{"unknown key", []string{`{"id":"x","text":"t","expected":null,"kind":"new","acceptable":[],"category":"x"}`}, []string{`test.jsonl:1: not a valid item: json: unknown field "category"`}},
		{"duplicate id", []string{ok, "", ok}, []string{`test.jsonl:3: id "x1" is already used on line 1`}},
		{"missing keys", []string{`{"id":"x"}`}, []string{`test.jsonl:1: "text" is missing`, `"expected" is missing`, `"acceptable" is missing`, `"kind" is missing`}},
		{"unknown rule", []string{`{"id":"x","text":"t","expected":"tool.nope","kind":"match","acceptable":["tool.nope"]}`}, []string{`test.jsonl:1: rule "tool.nope" is not in registry default`}},
		{"match with two rules", []string{`{"id":"x","text":"t","expected":"tool.use-ripgrep","kind":"match","acceptable":["tool.use-ripgrep","tool.uv-not-pip"]}`}, []string{"test.jsonl:1: a match item has a rule id in expected and acceptable = [expected]"}},
		{"new with a rule", []string{`{"id":"x","text":"t","expected":"tool.use-ripgrep","kind":"new","acceptable":[]}`}, []string{"test.jsonl:1: a new item has expected null and acceptable []"}},
		{"ambiguous with one rule", []string{`{"id":"x","text":"t","expected":"tool.use-ripgrep","kind":"ambiguous","acceptable":["tool.use-ripgrep"]}`}, []string{"test.jsonl:1: an ambiguous item lists at least two rules"}},
		{"ambiguous, expected not first", []string{`{"id":"x","text":"t","expected":"tool.use-ripgrep","kind":"ambiguous","acceptable":["tool.uv-not-pip","tool.use-ripgrep"]}`}, []string{"with expected first"}},
		{"repeated acceptable", []string{`{"id":"x","text":"t","expected":"tool.use-ripgrep","kind":"ambiguous","acceptable":["tool.use-ripgrep","tool.use-ripgrep"]}`}, []string{`acceptable lists "tool.use-ripgrep" twice`}},
		{"contradiction without a rule", []string{`{"id":"x","text":"npm is fine here","expected":null,"kind":"contradiction","acceptable":[]}`}, []string{"test.jsonl:1: a contradiction item has the rule it contradicts in expected and acceptable = [expected]"}},
		{"contradiction of two rules", []string{`{"id":"x","text":"npm and pip are fine","expected":"tool.pnpm-not-npm","kind":"contradiction","acceptable":["tool.pnpm-not-npm","tool.uv-not-pip"]}`}, []string{"a contradiction item has the rule it contradicts"}},
		{"contradiction of another rule", []string{`{"id":"x","text":"npm is fine","expected":"tool.pnpm-not-npm","kind":"contradiction","acceptable":["tool.uv-not-pip"]}`}, []string{"a contradiction item has the rule it contradicts"}},
		{"contradiction of an unknown rule", []string{`{"id":"x","text":"npm is fine","expected":"tool.nope","kind":"contradiction","acceptable":["tool.nope"]}`}, []string{`rule "tool.nope" is not in registry default`}},
		{"bad kind", []string{`{"id":"x","text":"t","expected":null,"kind":"maybe","acceptable":[]}`}, []string{`kind "maybe": want match, new, ambiguous or contradiction`}},
		{"blank text", []string{`{"id":"x","text":"  ","expected":null,"kind":"new","acceptable":[]}`}, []string{"test.jsonl:1: text is empty"}},
		{"no letters", []string{`{"id":"x","text":"?!","expected":null,"kind":"new","acceptable":[]}`}, []string{"has no letter or digit"}},
		{"expected not a string", []string{`{"id":"x","text":"t","expected":3,"kind":"new","acceptable":[]}`}, []string{`"expected" is 3: want a rule id or null`}},
		{"bad split", []string{`{"id":"x","text":"t","expected":null,"kind":"new","acceptable":[],"split":"train"}`}, []string{`split "train": want "dev" or "test"`}},
		{"mixed splits", []string{`{"id":"x","text":"t","expected":null,"kind":"new","acceptable":[],"split":"dev"}`, `{"id":"y","text":"t","expected":null,"kind":"new","acceptable":[]}`}, []string{"test.jsonl:2: no split, but 1 other items have one"}},
		{"two values", []string{`{"id":"x","text":"t","expected":null,"kind":"new","acceptable":[]} {}`}, []string{"more than one JSON value"}},
		{"empty", []string{"", "  "}, []string{"test.jsonl: the dataset has no items"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDataset(strings.NewReader(strings.Join(tc.lines, "\n")), "test.jsonl", nil)
			if err == nil {
				t.Fatalf("ParseDataset accepted %q", tc.lines)
			}
			if engine.ErrorCode(err) != engine.EINVALID || len(engine.ProblemsOf(err)) == 0 {
				t.Errorf("error %v: code %s, %d problems; want EINVALID with problems", err, engine.ErrorCode(err), len(engine.ProblemsOf(err)))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestParseDatasetValid(t *testing.T) {
	d := MustParseDataset(t,
		`{"id":"m","text":"rg please","expected":"tool.use-ripgrep","kind":"match","acceptable":["tool.use-ripgrep"],"note":"terse"}`,
		``,
		`{"id":"n","text":"that's wrong","expected":null,"kind":"new","acceptable":[]}`,
		`{"id":"a","text":"wrong package manager","expected":"tool.pnpm-not-npm","kind":"ambiguous","acceptable":["tool.pnpm-not-npm","tool.uv-not-pip"]}`,
		`{"id":"c","text":"npm is fine for this repo","expected":"tool.pnpm-not-npm","kind":"contradiction","acceptable":["tool.pnpm-not-npm"]}`,
	)
	if len(d.Items) != 4 || d.Items[1].Line != 3 || d.Items[1].Expected != "" || d.Items[2].Expected != "tool.pnpm-not-npm" || d.HasSplits() {
		t.Errorf("items = %+v", d.Items)
	}
	if c := d.Items[3]; c.Kind != KindContradiction || c.Expected != "tool.pnpm-not-npm" || !c.Accepts("tool.pnpm-not-npm") {
		t.Errorf("contradiction item = %+v", c)
	}
	if got := d.Count(); got[KindContradiction] != 1 || got[KindMatch] != 1 || got[KindNew] != 1 || got[KindAmbiguous] != 1 {
		t.Errorf("Count = %v", got)
	}
}

func TestLoadDatasetErrors(t *testing.T) {
	_, err := LoadDataset(t.TempDir()+"/missing.jsonl", nil)
	if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
	big := strings.NewReader(strings.Repeat(" ", MaxDatasetSize+1))
	if _, err := ParseDataset(big, "big", nil); engine.ErrorCode(err) != engine.ETOOLARGE {
		t.Errorf("oversized dataset: %v, want ETOOLARGE", err)
	}
	long := `{"id":"x","text":"` + strings.Repeat("a", MaxLineSize) + `","expected":null,"kind":"new","acceptable":[]}`
	_, err = ParseDataset(strings.NewReader(long), "long", nil)
	var de *engine.ValidationError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "long:1: cannot read the line") {
		t.Errorf("over-long line: %v", err)
	}
}

func TestShippedDatasetIsBuiltIn(t *testing.T) {
	d, err := ShippedDataset(nil)
	if err != nil {
		t.Fatalf("ShippedDataset: %v", err)
	}
	if file := MustShipped(t); len(d.Items) != len(file.Items) || d.Items[len(d.Items)-1].Text != file.Items[len(file.Items)-1].Text || d.Name != ShippedName {
		t.Errorf("the built-in dataset (%d items, %q) differs from %s (%d items)", len(d.Items), d.Name, shippedDataset, len(file.Items))
	}
}
