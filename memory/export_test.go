package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/store"
	_ "github.com/lexsona/lexsona/store/postgres" // the round trip through PostgreSQL
	"github.com/lexsona/lexsona/store/storetest"
)

// fillMemory gives s a memory of every kind: registry rules with evidence,
// an exception proposal, an archived rule, a user rule (renamed, so with
// an alias), config, pending confirmations (one resolved).
func fillMemory(t *testing.T, s *Service, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	for i := range 12 {
		MustRecord(t, s, engine.Correction{RuleID: "tool.no-sed-for-file-editing", Polarity: engine.Reinforce,
			UserText: "stop using sed", Scope: engine.Scope{Project: "api"}, At: t0.Add(time.Duration(i) * time.Minute)})
	}
	for i := range 5 {
		MustRecord(t, s, engine.Correction{RuleID: "tool.no-sed-for-file-editing", Polarity: engine.Counter,
			UserText: "sed is fine for the legacy scripts", Scope: engine.Scope{ContextTags: []string{"legacy"}},
			At: t0.Add(time.Hour + time.Duration(i)*time.Minute)})
	}
	r := engine.NewRule("user.answer-in-french", "communication_style", engine.SeverityStyle, "Answer in French",
		engine.Scope{Environment: "home"}, engine.DefaultConfig(), t0)
	if _, err := storetest.CreateRule(db, r); err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		MustRecord(t, s, engine.Correction{RuleID: r.RuleID, UserText: "en français, s'il te plaît",
			Scope: engine.Scope{Environment: "home"}, At: t0.Add(time.Duration(i+1) * time.Minute)})
	}
	renamed := "user.reply-in-french"
	if _, err := s.EditRule(ctx, r.RuleID, RulePatch{RenameTo: &renamed}, t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ArchiveRule(ctx, "code.conventional-commits", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetConfig(ctx, "category.tool_preference.c_min", "0.65"); err != nil {
		t.Fatal(err)
	}
	team := engine.Definition{Rule: engine.Rule{RuleID: "team.no-force-push", Category: "tool_preference",
		Severity: engine.SeverityMust, Text: "Never force-push to main"}, Examples: []string{"don't force push"}}
	if _, err := ApplyRegistry(ctx, db, RegistrySync{Name: "team", Definitions: []engine.Definition{team},
		YAML: []byte(teamYAML)}); err != nil {
		t.Fatal(err)
	}
	confirm := New(db, s.emb, bands(1, 0.3))
	id, _ := mustPending(t, confirm, "please quit using sed when you edit my files", engine.Reinforce)
	mustPending(t, confirm, "do not use sed to change files", engine.Counter)
	if _, err := s.Confirm(ctx, id, ActionAccept, "", 0, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
}

// teamYAML is the registry fillMemory records as "team".
const teamYAML = `version: 1
name: team
rules:
  - rule_id: team.no-force-push
    category: tool_preference
    severity: must
    template: Never force-push to main
    examples: ["don't force push"]
`

func mustExport(t *testing.T, s *Service) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.Export(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// normalized is an export without what differs between stores holding the
// same memory: the header's time and source, event and confirmation ids.
func normalized(t *testing.T, export []byte) []string {
	t.Helper()
	var out []string
	dec := json.NewDecoder(bytes.NewReader(export))
	for dec.More() {
		var l exportLine
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		l.ExportedAt, l.Source = time.Time{}, ""
		if l.Event != nil {
			l.Event.EventID = 0
		}
		if l.Pending != nil {
			l.Pending.ID = 0
		}
		b, _ := json.Marshal(l)
		out = append(out, string(b))
	}
	return out
}

// newService opens an empty store of kind ("sqlite", "postgres") with a
// service over it.
func newService(t *testing.T, kind string) (*Service, *store.DB) {
	t.Helper()
	db := MustOpenStore(t)
	if kind == "postgres" {
		var err error
		if db, err = store.OpenWith(context.Background(), testenv.PGSchemaURL(t), store.Options{Clock: time.Now}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
	}
	return New(db, MustLexical(t, nil), Options{}), db
}

// TestExportImportRoundTrip: a memory exported from SQLite, imported into
// an empty store (SQLite, PostgreSQL), exported again and imported back
// into SQLite gives the same rules, α and β, texts, events, config,
// registries, confirmations and persona; importing again changes nothing.
func TestExportImportRoundTrip(t *testing.T) {
	src, srcDB := MustDefaultService(t, Options{})
	fillMemory(t, src, srcDB)
	exported := mustExport(t, src)
	want := normalized(t, exported)
	if !strings.Contains(string(exported), `"exception_of":"tool.no-sed-for-file-editing"`) {
		t.Fatal("the fixture has no exception proposal")
	}
	var end exportLine
	if err := json.Unmarshal([]byte(want[len(want)-1]), &end); err != nil || end.Counts == nil {
		t.Fatalf("last record %s: %v", want[len(want)-1], err)
	}
	if c := *end.Counts; c.Registries != 1 || c.Config < 3 || c.Rules < 30 || c.Texts < c.Rules || c.Events < c.Rules+18 || c.Aliases != 1 || c.Pending != 2 {
		t.Fatalf("export counts %+v: the fixture lacks something", c)
	}
	t.Logf("exported %+v", *end.Counts)
	ctx := context.Background()
	for _, via := range []string{"sqlite", "postgres"} {
		t.Run(via, func(t *testing.T) {
			mid, _ := newService(t, via)
			if _, err := mid.Import(ctx, bytes.NewReader(exported)); err != nil {
				t.Fatalf("import into %s: %v", via, err)
			}
			if v, err := mid.GetRule(ctx, "user.answer-in-french", time.Time{}); err != nil || v.RuleID != "user.reply-in-french" {
				t.Errorf("the imported alias: GetRule(user.answer-in-french) = %s, %v; want user.reply-in-french", v.RuleID, err)
			}
			again := mustExport(t, mid)
			if diff := cmp.Diff(want, normalized(t, again)); diff != "" {
				t.Fatalf("export of %s (-sqlite source +%s):\n%s", via, via, diff)
			}
			back, backDB := newService(t, "sqlite")
			if _, err := back.Import(ctx, bytes.NewReader(again)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, normalized(t, mustExport(t, back))); diff != "" {
				t.Errorf("back in SQLite (-source +round trip):\n%s", diff)
			}
			for _, sc := range []engine.Scope{{}, {Project: "api"}, {Environment: "home"}, {ContextTags: []string{"legacy"}}} {
				req := PersonaRequest{Scope: sc, Now: t0.Add(3 * time.Hour)}
				p0, err0 := src.Persona(ctx, req)
				p1, err1 := mid.Persona(ctx, req)
				p2, err2 := back.Persona(ctx, req)
				if err0 != nil || err1 != nil || err2 != nil {
					t.Fatal(err0, err1, err2)
				}
				if diff := cmp.Diff(p0, p1); diff != "" {
					t.Errorf("persona %+v in %s (-source +%s):\n%s", sc, via, via, diff)
				}
				if diff := cmp.Diff(p0, p2); diff != "" {
					t.Errorf("persona %+v back in SQLite (-source +round trip):\n%s", sc, diff)
				}
			}
			before := MustCount(t, backDB)
			res, err := back.Import(ctx, bytes.NewReader(again))
			if err != nil {
				t.Fatal(err)
			}
			if res.Added != (ExportCounts{}) || MustCount(t, backDB) != before {
				t.Errorf("importing again added %+v (rows %+v → %+v), want nothing", res.Added, before, MustCount(t, backDB))
			}
		})
	}
}

// TestImportRefuses: a newer version, a file that is not an export, a
// truncated one, a misplaced record: refused with nothing written.
func TestImportRefuses(t *testing.T) {
	src, srcDB := MustDefaultService(t, Options{})
	fillMemory(t, src, srcDB)
	exported := string(mustExport(t, src))
	lines := strings.SplitAfter(strings.TrimSuffix(exported, "\n"), "\n")
	for _, tc := range []struct {
		name, file, msg string
	}{
		{"newer version", strings.Replace(exported, `"version":2`, `"version":3`, 1), "version 3, newer than this lexsona build reads (2): upgrade lexsona"},
		{"an alias of a rule not in the file", strings.Replace(exported, `"rule_id":"user.reply-in-french"}}`, `"rule_id":"user.nowhere"}}`, 1),
			"an alias of rule user.nowhere, which no rule record before it holds"},
		{"an alias that is a rule's id", strings.Replace(exported, `"old_id":"user.answer-in-french"`, `"old_id":"tool.no-sed-for-file-editing"`, 1),
			"yet the file holds a rule with that id"},
		{"not an export", `{"rules":[]}` + "\n", "not a LexSona export"},
		{"not JSON", "rule_id,text\n", "not a JSON object"},
		{"truncated", strings.Join(lines[:len(lines)-1], ""), "truncated"},
		{"a record less", strings.Join(append(append([]string{}, lines[:len(lines)-2]...), lines[len(lines)-1]), ""), "truncated or was edited"},
		{"cut in the middle", strings.Join(lines[:len(lines)/2], ""), "truncated"},
		{"a text before any rule", strings.Join(append([]string{lines[0], textLine(t, lines)}, lines[1:]...), ""), "follows no rule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, db := newService(t, "sqlite")
			before := MustCount(t, db)
			_, err := s.Import(context.Background(), strings.NewReader(tc.file))
			MustCode(t, err, engine.EINVALID)
			if !strings.Contains(engine.ErrorMessage(err), tc.msg) {
				t.Errorf("message %q does not say %q", engine.ErrorMessage(err), tc.msg)
			}
			if after := MustCount(t, db); after != before {
				t.Errorf("a refused file changed the store: rows %+v → %+v", before, after)
			}
		})
	}
}

// TestImportReadsVersion1: a file of the first version, which had no
// alias records, imports as one without aliases.
func TestImportReadsVersion1(t *testing.T) {
	src, srcDB := MustDefaultService(t, Options{})
	fillMemory(t, src, srcDB)
	var v1 []string
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(mustExport(t, src)), "\n"), "\n") {
		if strings.HasPrefix(l, `{"kind":"alias"`) {
			continue
		}
		l = strings.Replace(l, `"version":2`, `"version":1`, 1)
		v1 = append(v1, strings.Replace(l, `"aliases":1,`, "", 1))
	}
	s, _ := newService(t, "sqlite")
	res, err := s.Import(context.Background(), strings.NewReader(strings.Join(v1, "")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Added.Aliases != 0 || res.Added.Rules == 0 {
		t.Errorf("added %+v", res.Added)
	}
	if _, err := s.GetRule(context.Background(), "user.answer-in-french", time.Time{}); engine.ErrorCode(err) != engine.ENOTFOUND {
		t.Errorf("an id the version 1 file has no alias for: %v, want not found", err)
	}
}

// textLine is the first text record of an export's lines.
func textLine(t *testing.T, lines []string) string {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, `{"kind":"text"`) {
			return l
		}
	}
	t.Fatal("the export has no text record")
	return ""
}
