package memory

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/lexical"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// teamSourceYAML is a second source: two rules, four texts.
const teamSourceYAML = `version: 1
name: team
rules:
  - rule_id: team.use-just
    category: tool_preference
    severity: should
    template: "Run tasks with just, not make"
    examples: ["use just not make"]
  - rule_id: team.short-commits
    category: communication
    severity: style
    template: "Keep commit subjects under fifty characters"
    examples: ["commit subject is too long"]
`

func team() registry.Source {
	return registry.Source{File: "rules/team.yaml", YAML: []byte(teamSourceYAML)}
}

// mustSyncInForce syncs src in force or fails t.
func mustSyncInForce(t *testing.T, db *store.DB, emb models.Embedder, src registry.Source, opts SyncOptions) Summary {
	t.Helper()
	_, sum, err := syncInForce(context.Background(), db, emb, src, opts)
	if err != nil {
		t.Fatalf("syncInForce(%s): %v", src.File, err)
	}
	return sum
}

// fitter is hooked with the lexical embedder's Fit: a corpus-dependent
// embedder whose calls are counted.
type fitter struct {
	hooked
	lex *lexical.Embedder
}

func (f *fitter) Fit(texts []string) { f.lex.Fit(texts) }

// TestSyncInForceUnion: with two sources in force, the registry in force is
// their union, and the lexical embedder is fitted on the union's texts — by
// the second sync and again, with the same identity and nothing to embed,
// at the next start.
func TestSyncInForceUnion(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t)
	lex := mustLexicalOn(t, nil)
	emb := &fitter{hooked{Embedder: lex}, lex}
	if _, _, err := syncInForce(ctx, db, emb, registry.DefaultSource(), SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	before := lex.Identity().ID()
	_, sum, err := syncInForce(ctx, db, emb, team(), SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	union := registry.Merge(registry.Default(), MustParse(t, teamSourceYAML, "team"))
	// The default pack's fit is no longer in force: its vectors are gone.
	if old, err := db.LoadEmbeddings(ctx, before); err != nil || len(old) != 0 || sum.Pruned == 0 {
		t.Errorf("%d vectors left under the earlier fit %s (%v); summary pruned %d, want them deleted", len(old), before, err, sum.Pruned)
	}
	if want := mustLexicalOn(t, union.Texts()).Identity().ID(); sum.Model != want || lex.Identity().ID() != want {
		t.Errorf("fitted as %s (summary %s), want the union's fit %s", lex.Identity().ID(), sum.Model, want)
	}
	if sum.Registry != "team" || sum.Added != 2 || sum.Archived != 0 || sum.Embedded != len(union.Texts()) {
		t.Errorf("summary %+v: want team's 2 rules added, every text embedded again (the vocabulary changed)", sum)
	}

	got, err := InForce(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name() != "default+team" || got.Len() != registry.Default().Len()+2 {
		t.Errorf("in force: %s with %d rules, want default+team with %d", got.Name(), got.Len(), registry.Default().Len()+2)
	}
	if len(got.Checks("tool.no-sed-for-file-editing")) == 0 {
		t.Errorf("the default pack's enforce checks are not in force next to team")
	}

	// A restart: a fresh embedder, fitted on the same union, embeds nothing.
	lex2 := mustLexicalOn(t, nil)
	emb2 := &fitter{hooked{Embedder: lex2}, lex2}
	reg, sum, err := ensureInForce(ctx, db, emb2, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if reg.Name() != "default+team" || sum.Model != lex.Identity().ID() || sum.Embedded != 0 || emb2.calls != 0 {
		t.Errorf("restart: %s %+v, %d embed calls: want default+team under %s, nothing embedded", reg.Name(), sum, emb2.calls, lex.Identity().ID())
	}
	// Syncing team again changes no vocabulary: nothing is embedded.
	if sum := mustSyncInForce(t, db, emb2, team(), SyncOptions{}); sum.Embedded != 0 || sum.Updated != 0 {
		t.Errorf("team again: %+v, want a no-op", sum)
	}
}

// TestSyncInForceKeepsOtherVectors: with an embedder whose vectors do not
// depend on the registries (the neural ones), syncing a second source
// embeds its texts only, never the first source's again.
func TestSyncInForceKeepsOtherVectors(t *testing.T) {
	db := MustOpenStore(t)
	emb := &hooked{Embedder: mustLexicalOn(t, registry.Default().Texts())}
	first := mustSyncInForce(t, db, emb, registry.DefaultSource(), SyncOptions{})
	emb.texts = 0
	sum := mustSyncInForce(t, db, emb, team(), SyncOptions{})
	if sum.Embedded != 4 || emb.texts != 4 || sum.Skipped != first.Embedded {
		t.Errorf("second source: %+v, %d texts sent to the embedder: want team's 4 embedded, the %d of the default pack skipped",
			sum, emb.texts, first.Embedded)
	}
}

// TestSyncInForceEmpty: a registry without rules is refused, changing
// nothing, unless AllowEmpty, which archives its source's rules only; the
// empty registry stays in force.
func TestSyncInForceEmpty(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t)
	emb := &hooked{Embedder: mustLexicalOn(t, registry.Default().Texts())}
	mustSyncInForce(t, db, emb, registry.DefaultSource(), SyncOptions{})
	mustSyncInForce(t, db, emb, team(), SyncOptions{})
	empty := registry.Source{File: "rules/team.yaml", YAML: []byte("version: 1\nrules: []\n")}
	if _, _, err := syncInForce(ctx, db, emb, empty, SyncOptions{}); engine.ErrorCode(err) != engine.EINVALID ||
		!strings.Contains(err.Error(), "--allow-empty") {
		t.Fatalf("empty registry: %v, want EINVALID saying how to allow it", err)
	}
	if r, err := db.GetRule(ctx, "team.use-just"); err != nil || r.Status == engine.StatusArchived {
		t.Fatalf("refused empty registry changed team.use-just: %+v %v", r, err)
	}
	sum := mustSyncInForce(t, db, emb, empty, SyncOptions{AllowEmpty: true})
	if sum.Registry != "team" || sum.Archived != 2 {
		t.Errorf("allowed empty registry: %+v, want team's 2 rules archived", sum)
	}
	if r, _ := db.GetRule(ctx, "tool.no-sed-for-file-editing"); r.Status != engine.StatusActiveEligible {
		t.Errorf("the default pack's rule is %s after emptying team", r.Status)
	}
	got, err := InForce(ctx, db)
	if err != nil || got.Len() != registry.Default().Len() {
		t.Errorf("in force after emptying team: %v, %v: want the default pack's %d rules", got, err, registry.Default().Len())
	}
}

// TestSyncInForceNames: an upload names its source with name: or the name
// given with it; with neither it is refused, as when the two disagree.
func TestSyncInForceNames(t *testing.T) {
	noName := strings.Replace(teamSourceYAML, "name: team\n", "", 1)
	tests := []struct {
		name string
		src  registry.Source
		want string // the source synced, or the error's text
		code string
	}{
		{"name: in the YAML", registry.Source{YAML: []byte(teamSourceYAML)}, "team", ""},
		{"the name given", registry.Source{YAML: []byte(noName), Name: "team"}, "team", ""},
		{"both, agreeing", registry.Source{YAML: []byte(teamSourceYAML), Name: "team"}, "team", ""},
		{"neither", registry.Source{YAML: []byte(noName)}, "the registry has no name", engine.EINVALID},
		{"both, disagreeing", registry.Source{YAML: []byte(teamSourceYAML), Name: "other"}, `names itself "team" (name:) but the sync names it "other"`, engine.EINVALID},
		{"a file's base name", registry.Source{YAML: []byte(noName), File: "rules/Team.yaml"}, "team", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := MustOpenStore(t)
			_, sum, err := syncInForce(context.Background(), db, &hooked{Embedder: mustLexicalOn(t, nil)}, tt.src, SyncOptions{})
			if tt.code != "" {
				if engine.ErrorCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("got %v, want %s with %q", err, tt.code, tt.want)
				}
				if got := inForceNames(t, db); len(got) != 0 {
					t.Errorf("a refused registry recorded %v in force", got)
				}
				return
			}
			if err != nil || sum.Registry != tt.want {
				t.Fatalf("got %+v, %v: want source %s", sum, err, tt.want)
			}
			if got := inForceNames(t, db); !slices.Equal(got, []string{"default", tt.want}) {
				t.Errorf("recorded in force: %v, want default and %s", got, tt.want)
			}
		})
	}
}

// inForceNames returns the names of the registries recorded in force.
func inForceNames(tb testing.TB, db *store.DB) []string {
	tb.Helper()
	files, err := db.Registries(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return names
}

// TestSyncInForceDefaultFirst: the first registry synced into a store with
// none in force comes next to the default pack, not instead of it; a first
// registry named "default" replaces the pack.
func TestSyncInForceDefaultFirst(t *testing.T) {
	db := MustOpenStore(t)
	sum := mustSyncInForce(t, db, mustLexicalOn(t, nil), team(), SyncOptions{})
	if got := inForceNames(t, db); !slices.Equal(got, []string{"default", "team"}) || sum.Embedded != len(registry.Default().Texts())+4 {
		t.Errorf("in force %v, summary %+v: want default and team, every text embedded once", got, sum)
	}
	db = MustOpenStore(t)
	own := registry.Source{File: "mine.yaml", Name: "default", YAML: []byte(strings.Replace(teamSourceYAML, "name: team\n", "", 1))}
	mustSyncInForce(t, db, mustLexicalOn(t, nil), own, SyncOptions{})
	if got := inForceNames(t, db); !slices.Equal(got, []string{"default"}) {
		t.Errorf("in force %v, want the own default alone", got)
	}
	if _, err := db.GetRule(context.Background(), "tool.no-sed-for-file-editing"); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("the default pack was synced under an own default: %v", err)
	}
}
