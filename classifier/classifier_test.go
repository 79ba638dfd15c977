package classifier

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

func TestClassifyJSONShape(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	r, err := c.Classify(t.Context(), "stop editing files with sed", engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Decision != DecisionAutoMatch || r.RuleID != "tool.no-sed-for-file-editing" || r.Score != 1 {
		t.Fatalf("got %+v", r)
	}
	b, _ := json.Marshal(r)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{"candidates", "decision", "embedder", "model", "polarity", "rule_id", "score", "thresholds"}, keys); diff != "" {
		t.Errorf("JSON keys (-want +got):\n%s\n%s", diff, b)
	}
	var th map[string]float64
	json.Unmarshal(m["thresholds"], &th)
	var cands []map[string]any
	json.Unmarshal(m["candidates"], &cands)
	if _, ok := th["auto"]; !ok || len(th) != 2 || len(cands) == 0 || len(cands[0]) != 2 || cands[0]["rule_id"] == nil || cands[0]["score"] == nil {
		t.Errorf("thresholds %v candidates %v", th, cands)
	}
	if r.Embedder != "lexical" || !strings.HasPrefix(r.Model, "lexical-v1@") {
		t.Errorf("embedder %q model %q", r.Embedder, r.Model)
	}
}

func TestClassifyBadInput(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	tests := []struct {
		name, text string
		scope      engine.Scope
		code, says string
	}{
		{"empty", "", engine.Scope{}, engine.EINVALID, "empty"},
		{"whitespace", " \t\n ", engine.Scope{}, engine.EINVALID, "empty"},
		{"invalid UTF-8", "stop \xff using sed", engine.Scope{}, engine.EINVALID, "UTF-8"},
		{"no letters", "?!?! 👎", engine.Scope{}, engine.EINVALID, "no letters"},
		{"too large", strings.Repeat("a", engine.MaxUserTextLength+1), engine.Scope{}, engine.ETOOLARGE, "at most"},
		{"bad scope", "use pnpm", engine.Scope{Project: "Not Valid!"}, engine.EINVALID, "project"},
		{"malformed CORRECT", "CORRECT[Tool X]: because", engine.Scope{}, engine.EINVALID, `"Tool X"`},
		{"unknown CORRECT", "CORRECT[tool.does-not-exist]: because", engine.Scope{}, engine.ENOTFOUND, "tool.does-not-exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Classify(t.Context(), tt.text, tt.scope)
			MustCode(t, err, tt.code)
			if !strings.Contains(engine.ErrorMessage(err), tt.says) {
				t.Errorf("message %q does not say %q", engine.ErrorMessage(err), tt.says)
			}
		})
	}
}

func TestClassifyExplicit(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	r, err := c.Classify(t.Context(), "  correct [ style.no-emoji ] : no more party poppers", engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Decision: DecisionExplicit, RuleID: "style.no-emoji", Score: 1, Polarity: engine.Reinforce, Candidates: []engine.Candidate{},
		Embedder: "lexical", Model: r.Model, Thresholds: lexicalThresholds}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestClassifyHugeText: a 1 MB text is classified on its first few KiB.
func TestClassifyHugeText(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	text := "stop editing files with sed " + strings.Repeat("x", 1_000_000)
	r, err := c.Classify(t.Context(), text, engine.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Candidates) == 0 || r.Candidates[0].RuleID != "tool.no-sed-for-file-editing" {
		t.Errorf("got %+v", r)
	}
	if in := embedInput(text, DefaultLexicalMaxEmbedBytes); len(in) > DefaultLexicalMaxEmbedBytes {
		t.Errorf("embedded %d bytes", len(in))
	}
}

func TestEmbedInput(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"  a \n\t b  ", 100, "a b"},
		{"héllo wörld", 2, "h"},
		{"héllo wörld", 3, "hé"},
		{strings.Repeat(" ", 500) + "tail", 10, "tail"},
		{"ab cd", 3, "ab"},
		{"already folded", 100, "already folded"},
		{"already folded", 14, "already folded"},
		{"already folded", 13, "already folde"},
		{" lead", 100, "lead"},
		{"trail ", 100, "trail"},
		{"two  spaces", 100, "two spaces"},
		{"no\u00a0break", 100, "no break"},
		{"ideographic\u3000space", 100, "ideographic space"},
	} {
		if got := embedInput(tt.in, tt.max); got != tt.want {
			t.Errorf("embedInput(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// TestEmbedInputFastPath: returning an already folded text as it is gives
// what folding it gives, for many texts and cut lengths.
func TestEmbedInputFastPath(t *testing.T) {
	texts := append(scoringTexts(t), "", " ", "a", "a ", " a", "a  b", "a\tb", "a\u2028b", "a\u0085b", "日本 語", "\xff\xfe x")
	for _, text := range texts {
		for _, max := range []int{1, 7, 40, DefaultLexicalMaxEmbedBytes} {
			if got, want := embedInput(text, max), foldSpace(text, max); got != want {
				t.Errorf("embedInput(%q, %d) = %q, folding gives %q", text, max, got, want)
			}
		}
	}
}

// TestClassifyScope: a rule scoped to environment "personal" is no candidate
// for a correction made at work, and is one when the request says nothing.
func TestClassifyScope(t *testing.T) {
	c, _ := MustDefaultClassifier(t, Options{})
	def, _, ok := registry.Default().Lookup("tool.commit-each-step")
	if !ok {
		t.Skip("the default pack no longer has tool.commit-each-step")
	}
	text := def.Rule.Text
	has := func(s engine.Scope) bool {
		r, err := c.Classify(t.Context(), text, s)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(r.Candidates, func(x engine.Candidate) bool { return x.RuleID == def.Rule.RuleID })
	}
	if !has(engine.Scope{}) || !has(engine.Scope{Environment: "personal"}) {
		t.Error("rule missing from candidates where it can apply")
	}
	if has(engine.Scope{Environment: "work"}) {
		t.Error("a rule scoped to environment personal was a candidate at work")
	}
}

// TestNoEmbeddingsForModel: rules without vectors for the embedder's model
// are an EUNAVAILABLE error, not a store full of new rules.
func TestNoEmbeddingsForModel(t *testing.T) {
	_, corpus := MustDefaultClassifier(t, Options{})
	other := MustLexical(t, mustRegistry(t, "version: 1\nrules:\n  - {rule_id: a.b, category: x, severity: must, template: something else}\n"))
	_, err := New(corpus, other, Options{}).Classify(t.Context(), "stop editing files with sed", engine.Scope{})
	MustCode(t, err, engine.EUNAVAILABLE)
	if !strings.Contains(engine.ErrorMessage(err), "registry sync") {
		t.Errorf("message %q does not say what to do", engine.ErrorMessage(err))
	}
	empty := &memCorpus{scopes: map[string]engine.Scope{}, vectors: map[string][]Vector{}}
	r, err := New(empty, other, Options{}).Classify(t.Context(), "stop editing files with sed", engine.Scope{})
	if err != nil || r.Decision != DecisionNewRule || len(r.Candidates) != 0 {
		t.Errorf("an empty store: %+v, %v", r, err)
	}
}

func mustRegistry(tb testing.TB, y string) *registry.Registry {
	tb.Helper()
	reg, err := registry.Parse([]byte(y), "test.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

func TestBadOptions(t *testing.T) {
	_, corpus := MustDefaultClassifier(t, Options{})
	emb := MustLexical(t, nil)
	for name, o := range map[string]Options{
		"weight above 1":         {LexicalWeight: 2, Lexical: emb},
		"hybrid without lexical": {LexicalWeight: 0.5},
		"bad thresholds":         {Thresholds: &Thresholds{0.5, 0.9}},
	} {
		_, err := New(corpus, emb, o).Classify(t.Context(), "use pnpm", engine.Scope{})
		if engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
	}
}

// TestHybrid: with a lexical weight the score mixes both embedders; with the
// same embedder on both sides it equals the dense score.
func TestHybrid(t *testing.T) {
	c, corpus := MustDefaultClassifier(t, Options{})
	h := New(corpus, c.emb, Options{Lexical: c.emb, LexicalWeight: 0.3})
	for _, text := range []string{"stop editing files with sed", "please use pnpm instead of npm", "never commit without asking me"} {
		a, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := h.Classify(t.Context(), text, engine.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%q: hybrid with one embedder differs (-dense +hybrid):\n%s", text, diff)
		}
	}
}

// TestConcurrentClassify: readers share the index while rules are added to
// the corpus (run with -race); afterwards each added rule's own text
// auto-matches it, so the index was rebuilt for every addition.
func TestConcurrentClassify(t *testing.T) {
	c, corpus := MustDefaultClassifier(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	animals := []string{"quokkas", "wombats", "numbats", "bilbies"}
	added := map[string]string{} // text → rule id, written by goroutine 0 only
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if _, err := c.Classify(t.Context(), "stop editing files with sed", engine.Scope{}); err != nil {
					errs <- err
				}
				if i == 0 && j%3 == 0 {
					a := animals[j/3]
					id, text := "user.feed-"+a, "always feed the "+a+" before you deploy"
					if err := corpus.addRule(t.Context(), c.emb, id, text); err != nil {
						errs <- err
					}
					added[text] = id
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(added) != len(animals) {
		t.Fatalf("added %d rules, want %d", len(added), len(animals))
	}
	for text, want := range added {
		r, err := c.Classify(t.Context(), text, engine.Scope{})
		if err != nil || r.Decision != DecisionAutoMatch || r.RuleID != want {
			t.Errorf("%q: %+v, %v; want auto_match %s", text, r, err, want)
		}
	}
}
