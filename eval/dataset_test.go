package eval

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

func TestShippedDatasetComposition(t *testing.T) {
	d := MustShipped(t)
	if got, want := d.Count(), map[string]int{KindMatch: 120, KindNew: 50, KindAmbiguous: 30}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("kinds = %v, want %v (the paper's composition)", got, want)
	}
	if !d.HasSplits() {
		t.Fatal("the shipped dataset has no dev/test split")
	}
	perRule := map[string]int{}
	splits := map[string]map[string]int{}
	bySplit := map[string]int{}
	for _, it := range d.Items {
		if it.Kind == KindMatch {
			perRule[it.Expected]++
		}
		if splits[it.Kind] == nil {
			splits[it.Kind] = map[string]int{}
		}
		splits[it.Kind][it.Split]++
		if it.Kind == KindMatch {
			bySplit[it.Expected+"/"+it.Split]++
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
}

// TestShippedDatasetPhrasing checks that at least a third of the match items
// share at most one content word with their rule's template, and that no text
// repeats a registry template or example (that would grade memorisation).
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
		{"bad kind", []string{`{"id":"x","text":"t","expected":null,"kind":"maybe","acceptable":[]}`}, []string{`kind "maybe": want match, new or ambiguous`}},
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
			if engine.ErrorCode(err) != engine.EINVALID || len(Problems(err)) == 0 {
				t.Errorf("error %v: code %s, %d problems; want EINVALID with problems", err, engine.ErrorCode(err), len(Problems(err)))
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
	)
	if len(d.Items) != 3 || d.Items[1].Line != 3 || d.Items[1].Expected != "" || d.Items[2].Expected != "tool.pnpm-not-npm" || d.HasSplits() {
		t.Errorf("items = %+v", d.Items)
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
	var de *DatasetError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "long:1: cannot read the line") {
		t.Errorf("over-long line: %v", err)
	}
}

func TestShippedDatasetIsBuiltIn(t *testing.T) {
	d, err := ShippedDataset(nil)
	if err != nil {
		t.Fatalf("ShippedDataset: %v", err)
	}
	if file := MustShipped(t); len(d.Items) != len(file.Items) || d.Items[199].Text != file.Items[199].Text || d.Name != ShippedName {
		t.Errorf("the built-in dataset (%d items, %q) differs from %s (%d items)", len(d.Items), d.Name, shippedDataset, len(file.Items))
	}
}
