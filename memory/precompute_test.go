package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/registry/registrytest"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/storetest"
)

// tSync is the time of the registry tests' syncs.
var tSync = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// mustLexicalOn opens the lexical embedder through auto.Open, fitted on texts.
func mustLexicalOn(tb testing.TB, texts []string) *lexical.Embedder {
	tb.Helper()
	e, err := auto.Open(context.Background(), models.Options{Backend: "lexical", CacheSize: -1})
	if err != nil {
		tb.Fatalf("auto.Open(lexical): %v", err)
	}
	lex, ok := e.(*lexical.Embedder)
	if !ok {
		tb.Fatalf("auto.Open(lexical) returned %T", e)
	}
	lex.Fit(texts)
	return lex
}

// MustParse parses a registry or fails tb.
func MustParse(tb testing.TB, data, name string) *registry.Registry {
	tb.Helper()
	reg, err := registry.Parse([]byte(data), name)
	if err != nil {
		tb.Fatalf("registry.Parse(%s): %v", name, err)
	}
	return reg
}

// hooked wraps an embedder, counting calls and texts, running hook before
// each call and after once it has returned.
type hooked struct {
	models.Embedder
	calls, texts int
	hook         func(call int) error
	after        func(call int)
}

func (h *hooked) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.calls++
	h.texts += len(texts)
	if h.hook != nil {
		if err := h.hook(h.calls); err != nil {
			return nil, err
		}
	}
	vecs, err := h.Embedder.Embed(ctx, texts)
	if h.after != nil {
		h.after(h.calls)
	}
	return vecs, err
}

func mustSync(t *testing.T, db *store.DB, emb models.Embedder, reg *registry.Registry, want Summary) {
	t.Helper()
	got, err := Precompute(context.Background(), db, emb, reg, SyncOptions{Now: tSync})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	want.Registry, want.Embedder, want.Model = reg.Name(), "lexical", emb.Identity().ID()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// edited is the default pack with tool.use-ripgrep's template changed,
// style.no-emoji removed and code.new (a template and two examples) added.
func edited(t *testing.T) *registry.Registry {
	src := string(registry.DefaultYAML())
	start := strings.Index(src, "  - rule_id: style.no-emoji\n")
	end := start + strings.Index(src[start:], "\n\n") + 2
	src = src[:start] + src[end:]
	src = strings.Replace(src, `template: "Search the codebase with rg (ripgrep), not grep -r or find piped into grep"`,
		`template: "Search with rg, never grep -r"`, 1)
	src += "\n  - rule_id: code.new\n    category: code_style\n    severity: style\n    template: Name things plainly\n    examples: [\"what does foo2 mean\", \"use real names\"]\n"
	return MustParse(t, src, "default") // the same source, edited
}

// TestSyncLifecycle: add, no-op, update (evidence kept) + archive + add,
// no-op again, then restore.
func TestSyncLifecycle(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t)
	reg := registry.Default()
	emb := mustLexicalOn(t, reg.Texts())
	n := len(reg.Texts())

	mustSync(t, db, emb, reg, Summary{Added: reg.Len(), Embedded: n})
	mustSync(t, db, emb, reg, Summary{Skipped: n})

	if err := db.Write(ctx, t0, func(tx *store.Tx) error {
		_, _, err := ApplyCorrection(tx, engine.Correction{RuleID: "tool.use-ripgrep", Polarity: engine.Reinforce,
			UserText: "rg please", At: tSync})
		return err
	}); err != nil {
		t.Fatalf("ApplyCorrection: %v", err)
	}
	before, _ := db.GetRule(ctx, "tool.use-ripgrep")

	// The texts of style.no-emoji (template, examples, contrary phrasings)
	// leave, 3 of code.new arrive; ripgrep's new template and code.new's
	// texts are the 4 to embed.
	emoji, _, _ := reg.Lookup("style.no-emoji")
	gone := 1 + len(emoji.Examples) + len(reg.Contrary("style.no-emoji"))
	mustSync(t, db, emb, edited(t), Summary{Added: 1, Updated: 1, Archived: 1, Embedded: 4, Skipped: n - gone + 3 - 4})
	mustSync(t, db, emb, edited(t), Summary{Skipped: n - gone + 3})

	after, err := db.GetRule(ctx, "tool.use-ripgrep")
	if err != nil {
		t.Fatal(err)
	}
	if after.Text != "Search with rg, never grep -r" || after.Alpha != before.Alpha || after.Beta != before.Beta ||
		after.Reinforcements != 1 {
		t.Errorf("updated rule %+v: want the new text and the evidence of %+v", after, before)
	}
	if r, err := db.GetRule(ctx, "style.no-emoji"); err != nil || r.Status != engine.StatusArchived {
		t.Errorf("removed rule: %+v, %v: want it archived, not deleted", r, err)
	}

	// Back to the default: ripgrep changes back (its old template vector went
	// with the old text), no-emoji is restored with its vectors, code.new archived.
	mustSync(t, db, emb, reg, Summary{Updated: 2, Archived: 1, Embedded: 1, Skipped: n - 1})
	if r, _ := db.GetRule(ctx, "style.no-emoji"); r.Status != engine.StatusActiveEligible {
		t.Errorf("restored rule has status %s", r.Status)
	}
}

// TestSyncResume cancels the job after its first batch: that batch is kept,
// and the next run embeds only the rest.
func TestSyncResume(t *testing.T) {
	db := MustOpenStore(t)
	reg := registry.Default()
	lex := mustLexicalOn(t, reg.Texts())
	n := len(reg.Texts())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancelled once the first batch is embedded: that batch is still stored.
	emb := &hooked{Embedder: lex, after: func(int) { cancel() }}
	sum, err := Precompute(ctx, db, emb, reg, SyncOptions{BatchSize: 8, Now: tSync})
	if engine.ErrorCode(err) != engine.EUNAVAILABLE || !errors.Is(err, context.Canceled) {
		t.Fatalf("Sync: %v: want EUNAVAILABLE wrapping context.Canceled", err)
	}
	if sum.Added != reg.Len() || sum.Embedded != 8 || emb.calls != 1 {
		t.Errorf("interrupted run: %+v after %d calls: want %d added, 8 embedded, 1 call", sum, emb.calls, reg.Len())
	}
	mustSync(t, db, lex, reg, Summary{Embedded: n - 8, Skipped: 8})
	stored, err := db.LoadEmbeddings(context.Background(), lex.Identity().ID())
	if err != nil || len(stored) != n {
		t.Errorf("%d vectors stored (%v): want %d", len(stored), err, n)
	}
}

// TestSyncEmbedderFailure: a failing embedder stops the job with its error,
// keeping the batches before it.
func TestSyncEmbedderFailure(t *testing.T) {
	db := MustOpenStore(t)
	reg := registry.Default()
	lex := mustLexicalOn(t, reg.Texts())
	boom := engine.Errorf(engine.EUNAVAILABLE, "model crashed")
	emb := &hooked{Embedder: lex, hook: func(call int) error {
		if call == 3 {
			return boom
		}
		return nil
	}}
	sum, err := Precompute(context.Background(), db, emb, reg, SyncOptions{BatchSize: 10, Now: tSync})
	if !errors.Is(err, boom) || engine.ErrorCode(err) != engine.EUNAVAILABLE {
		t.Fatalf("Sync: %v: want the embedder's error", err)
	}
	if sum.Embedded != 20 {
		t.Errorf("embedded %d before the failure: want 20", sum.Embedded)
	}
	mustSync(t, db, lex, reg, Summary{Embedded: len(reg.Texts()) - 20, Skipped: 20})
}

// TestSyncSharedText: a phrasing two rules share is embedded once and
// stored for both.
func TestSyncSharedText(t *testing.T) {
	db := MustOpenStore(t)
	reg := MustParse(t, `version: 1
rules:
  - {rule_id: a.one, category: c, severity: must, template: Use pnpm, examples: [not like that]}
  - {rule_id: a.two, category: c, severity: must, template: Use uv, examples: [not like that]}
`, "shared.yaml")
	emb := &hooked{Embedder: mustLexicalOn(t, reg.Texts())}
	sum, err := Precompute(context.Background(), db, emb, reg, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Embedded != 4 || emb.texts != 3 {
		t.Errorf("embedded %d rows from %d texts: want 4 from 3", sum.Embedded, emb.texts)
	}
}

// TestSyncContrary: contrary phrasings are stored as contrary texts and
// embedded; a registry that drops one removes it (and its vector); a user's
// own rule with a registry rule's id gets none.
func TestSyncContrary(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t)
	if _, err := storetest.CreateRule(db, engine.Rule{RuleID: "a.mine", Category: "c", Severity: engine.SeverityMust, Text: "My rule"}); err != nil {
		t.Fatal(err)
	}
	var emb models.Embedder
	sync := func(src string) (*registry.Registry, Summary) {
		t.Helper()
		reg := MustParse(t, src, "contrary.yaml")
		if emb == nil { // one fit for both syncs, so vectors carry over
			emb = mustLexicalOn(t, reg.Texts())
		}
		sum, err := Precompute(ctx, db, emb, reg, SyncOptions{Now: tSync})
		if err != nil {
			t.Fatalf("Sync: %v", err)
		}
		return reg, sum
	}
	_, sum := sync(`version: 1
rules:
  - {rule_id: a.one, category: c, severity: must, template: Use pnpm, examples: [pnpm please], contrary: [npm is fine, yarn is ok]}
  - {rule_id: a.mine, category: c, severity: must, template: Theirs, contrary: [ignore it]}
`)
	if sum.Embedded != 5 || sum.Kept != 1 {
		t.Errorf("first sync %+v: want 5 texts embedded (a.one's template, example, 2 contrary; a.mine's template), a.mine kept", sum)
	}
	want := map[string]string{"Use pnpm": store.KindTemplate, "pnpm please": store.KindExample, "npm is fine": store.KindContrary, "yarn is ok": store.KindContrary}
	if diff := cmp.Diff(want, storetest.MustTextKinds(t, db, "a.one")); diff != "" {
		t.Errorf("a.one texts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"My rule": store.KindTemplate}, storetest.MustTextKinds(t, db, "a.mine")); diff != "" {
		t.Errorf("a.mine texts (-want +got):\n%s", diff)
	}
	_, sum = sync(`version: 1
rules:
  - {rule_id: a.one, category: c, severity: must, template: Use pnpm, examples: [pnpm please], contrary: [npm is fine]}
`)
	delete(want, "yarn is ok")
	if diff := cmp.Diff(want, storetest.MustTextKinds(t, db, "a.one")); diff != "" {
		t.Errorf("a.one texts after dropping one (-want +got):\n%s", diff)
	}
	if sum.Embedded != 0 || sum.Skipped != 4 { // a.one's 3 texts and a.mine's template
		t.Errorf("second sync %+v: want nothing embedded, 4 skipped", sum)
	}
}

// TestSyncProgress: the job reports one step counting the texts it embeds,
// from 0 to all of them, and a second run (nothing to embed) reports nothing.
func TestSyncProgress(t *testing.T) {
	reg := registry.Default()
	lex := mustLexicalOn(t, reg.Texts())
	db := MustOpenStore(t)
	var steps []models.Step
	progress := func(s models.Step) { steps = append(steps, s) }
	sum, err := Precompute(context.Background(), db, lex, reg, SyncOptions{BatchSize: 100, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(sum.Embedded)
	if len(steps) < 2 || steps[0] != (models.Step{What: "embedding rule texts", Total: total}) ||
		steps[len(steps)-1] != (models.Step{What: "embedding rule texts", Done: total, Total: total}) {
		t.Fatalf("steps %+v: want 0 then up to %d", steps, total)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Done <= steps[i-1].Done {
			t.Errorf("step %d: done %d after %d", i, steps[i].Done, steps[i-1].Done)
		}
	}
	steps = nil
	if _, err := Precompute(context.Background(), db, lex, reg, SyncOptions{Progress: progress}); err != nil || len(steps) != 0 {
		t.Errorf("second run: %v, steps %+v: want none", err, steps)
	}
}

// TestSyncNilRegistry syncs the default pack.
func TestSyncNilRegistry(t *testing.T) {
	reg := registry.Default()
	sum, err := Precompute(context.Background(), MustOpenStore(t), mustLexicalOn(t, reg.Texts()), nil, SyncOptions{})
	if err != nil || sum.Added != reg.Len() {
		t.Errorf("Precompute(nil registry) = %+v, %v: want the default pack added", sum, err)
	}
}

// BenchmarkSync10000 embeds and stores the 40,000 texts of 10,000 rules in a
// fresh store, with the lexical embedder at its default 4,096 dimensions and
// at 384 (MiniLM's size, so the store's share is comparable to the real model's).
func BenchmarkSync10000(b *testing.B) {
	reg, err := registry.Parse(registrytest.Generate(10_000), "big.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, dims := range []int{lexical.DefaultDims, 384} {
		b.Run(fmt.Sprintf("dims=%d", dims), func(b *testing.B) {
			lex := lexical.New(dims)
			lex.Fit(reg.Texts())
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				db := MustOpenStore(b)
				b.StartTimer()
				sum, err := Precompute(ctx, db, lex, reg, SyncOptions{})
				if err != nil || sum.Embedded != 40_000 {
					b.Fatalf("Sync: %+v, %v", sum, err)
				}
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/40_000, "ns/text")
		})
	}
}

// BenchmarkSyncNoop10000 is what every command given --registry pays when
// nothing changed.
func BenchmarkSyncNoop10000(b *testing.B) {
	reg, err := registry.Parse(registrytest.Generate(10_000), "big.yaml")
	if err != nil {
		b.Fatal(err)
	}
	lex := mustLexicalOn(b, reg.Texts())
	ctx := context.Background()
	db := MustOpenStore(b)
	if _, err := Precompute(ctx, db, lex, reg, SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sum, err := Precompute(ctx, db, lex, reg, SyncOptions{})
		if err != nil || sum.Embedded+sum.Added+sum.Updated != 0 {
			b.Fatalf("Sync: %+v, %v", sum, err)
		}
	}
}

// BenchmarkSyncNoopDefault is the same for the default pack: the common case.
func BenchmarkSyncNoopDefault(b *testing.B) {
	reg := registry.Default()
	lex := mustLexicalOn(b, reg.Texts())
	ctx := context.Background()
	db := MustOpenStore(b)
	if _, err := Precompute(ctx, db, lex, reg, SyncOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if sum, err := Precompute(ctx, db, lex, reg, SyncOptions{}); err != nil || sum.Embedded+sum.Added+sum.Updated != 0 {
			b.Fatalf("Sync: %+v, %v", sum, err)
		}
	}
}
