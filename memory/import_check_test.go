package memory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// fakeGitHubToken has the shape of a GitHub personal access token (joined
// so that no scanner takes this file for a leak).
var fakeGitHubToken = strings.Join([]string{"gh", "p_", "Q7vR2mX9kL4pT8wZ1nB6cY3dF5gH0jS2aE7u"}, "")

// sampleRecords are the records of a small valid export after its header:
// the default registry, a config override, one user rule with its template
// and two events (creation, a reinforcement), a pending confirmation.
func sampleRecords() []exportLine {
	sample := engine.Rule{RuleID: "user.keep-functions-short", Category: "code_style", Severity: engine.SeverityShould,
		Text: "Keep functions short", Alpha: 3, Beta: 5, Reinforcements: 1, FirstSeen: t0, LastCorrection: t0.Add(time.Minute),
		Status: engine.StatusActiveEligible, Source: engine.SourceUser}
	value := "0.7"
	return []exportLine{
		{Kind: "registry", Registry: &store.RegistryFile{Name: "team", YAML: []byte(teamYAML), SyncedAt: t0}},
		{Kind: "config", Key: "category.code_style.c_min", Value: &value},
		{Kind: "rule", Rule: &sample},
		{Kind: "text", Text: &store.RuleText{RuleID: sample.RuleID, Kind: store.KindTemplate, Text: sample.Text}},
		{Kind: "event", Event: &engine.Event{EventID: 1, RuleID: sample.RuleID, EventType: engine.EventCreation, Detail: "created (source: user)",
			Alpha: 2, Beta: 5, At: t0}},
		{Kind: "event", Event: &engine.Event{EventID: 2, RuleID: sample.RuleID, EventType: engine.EventReinforcement, UserText: "keep them short",
			AgentOutput: "func f() { /* 300 lines */ }", Polarity: engine.Reinforce, Alpha: 3, Beta: 5, At: t0.Add(time.Minute)}},
		{Kind: "pending", Pending: &engine.Pending{Text: "shorter functions please", Polarity: engine.Reinforce, Status: engine.PendingOpen,
			Candidates: []engine.Candidate{}, CreatedAt: t0.Add(2 * time.Minute)}},
	}
}

// recordLine is the line of the first record of kind in sampleRecords'
// file (the header is line 1).
func recordLine(t *testing.T, recs []exportLine, kind string) int {
	t.Helper()
	for i, l := range recs {
		if l.Kind == kind {
			return i + 2
		}
	}
	t.Fatalf("no %s record", kind)
	return 0
}

// exportOf is an export file holding recs, with its header and an end
// record that counts them.
func exportOf(t *testing.T, recs []exportLine) string {
	t.Helper()
	var n ExportCounts
	for _, l := range recs {
		switch l.Kind {
		case "registry":
			n.Registries++
		case "config":
			n.Config++
		case "rule":
			n.Rules++
		case "text":
			n.Texts++
		case "event":
			n.Events++
		case "pending":
			n.Pending++
		}
	}
	all := append([]exportLine{{Kind: "header", Format: ExportFormat, Version: ExportVersion, ExportedAt: t0, Source: "sqlite:test.db"}}, recs...)
	all = append(all, exportLine{Kind: "end", Counts: &n})
	var b strings.Builder
	for _, l := range all {
		line, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// nth is the i-th record of kind in recs.
func nth(recs []exportLine, kind string, i int) *exportLine {
	for k := range recs {
		if recs[k].Kind == kind {
			if i == 0 {
				return &recs[k]
			}
			i--
		}
	}
	return nil
}

// TestImportChecksRecordsAsOtherInputs: what every other input refuses is
// refused in an export too, naming the line and what is wrong, with
// nothing written: control and bidirectional characters in an event's or a
// confirmation's texts, a registry that does not parse or whose name is a
// path, times in the future, α and β that no event explains.
func TestImportChecksRecordsAsOtherInputs(t *testing.T) {
	ruleLine, eventLine, pendingLine := recordLine(t, sampleRecords(), "rule"), recordLine(t, sampleRecords(), "event")+1, recordLine(t, sampleRecords(), "pending")
	regLine := recordLine(t, sampleRecords(), "registry")
	future := time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		edit func(recs []exportLine) []exportLine
		line int
		msg  string
	}{
		{"NUL in an event's text", func(r []exportLine) []exportLine {
			nth(r, "event", 1).Event.UserText = "keep\x00them short"
			return r
		}, eventLine, "correction text contains a control character (U+0000 NUL)"},
		{"ESC in an event's agent output", func(r []exportLine) []exportLine {
			nth(r, "event", 1).Event.AgentOutput = "ok \x1b[2J done"
			return r
		}, eventLine, "agent output contains a control character (U+001B ESC (escape))"},
		{"U+202E in an event's text", func(r []exportLine) []exportLine {
			nth(r, "event", 1).Event.UserText = "keep them \u202eshort"
			return r
		}, eventLine, "U+202E RIGHT-TO-LEFT OVERRIDE"},
		{"ESC in an event's detail", func(r []exportLine) []exportLine {
			nth(r, "event", 0).Event.Detail = "created \x1b]0;owned\x07"
			return r
		}, eventLine - 1, "event detail contains a control character"},
		{"ESC in a confirmation's text", func(r []exportLine) []exportLine {
			nth(r, "pending", 0).Pending.Text = "shorter \x1b[31mfunctions"
			return r
		}, pendingLine, "correction text contains a control character (U+001B ESC (escape))"},
		{"a registry that does not parse", func(r []exportLine) []exportLine {
			nth(r, "registry", 0).Registry.YAML = []byte("rules:\n  - id: team.no-force-push\n")
			return r
		}, regLine, "registry team does not parse"},
		{"a registry named ../evil", func(r []exportLine) []exportLine {
			nth(r, "registry", 0).Registry.Name = "../evil"
			return r
		}, regLine, `malformed registry name "../evil"`},
		{"a registry whose YAML names another", func(r []exportLine) []exportLine {
			nth(r, "registry", 0).Registry.Name = "other"
			return r
		}, regLine, `names itself "team"`},
		{"an event dated 2999", func(r []exportLine) []exportLine {
			nth(r, "event", 1).Event.At = future
			return r
		}, eventLine, "is in the future"},
		{"a creation event dated 2999", func(r []exportLine) []exportLine {
			nth(r, "event", 0).Event.At = future
			return r
		}, eventLine - 1, "is in the future"},
		{"a rule last corrected in 2999", func(r []exportLine) []exportLine {
			nth(r, "rule", 0).Rule.LastCorrection = future
			return r
		}, ruleLine, "is in the future"},
		{"a confirmation created in 2999", func(r []exportLine) []exportLine {
			nth(r, "pending", 0).Pending.CreatedAt = future
			return r
		}, pendingLine, "is in the future"},
		{"alpha 1e6 that its events do not explain", func(r []exportLine) []exportLine {
			nth(r, "rule", 0).Rule.Alpha = 1e6
			return r
		}, ruleLine, "rule user.keep-functions-short has alpha 1e+06, beta 5, 1 reinforcements and 0 counterexamples, but its 2 events, replayed from its prior, give alpha 3, beta 5, 1 and 0"},
		{"alpha 1e6 with no events behind it", func(r []exportLine) []exportLine {
			nth(r, "rule", 0).Rule.Alpha = 1e6
			var out []exportLine
			for _, l := range r {
				if l.Kind != "event" {
					out = append(out, l)
				}
			}
			return out
		}, ruleLine, "has no events: nothing explains its alpha 1e+06 and beta 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := exportOf(t, tc.edit(sampleRecords()))
			s, db := newService(t, "sqlite")
			before, rows := normalized(t, mustExport(t, s)), MustCount(t, db)
			_, err := s.Import(context.Background(), strings.NewReader(file))
			MustCode(t, err, engine.EINVALID)
			want := "line " + itoa(tc.line) + ":"
			if msg := engine.ErrorMessage(err); !strings.Contains(msg, want) || !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q does not name %q and say %q", msg, want, tc.msg)
			}
			if after := normalized(t, mustExport(t, s)); strings.Join(after, "\n") != strings.Join(before, "\n") || MustCount(t, db) != rows {
				t.Errorf("the refused file changed the store: rows %+v → %+v", rows, MustCount(t, db))
			}
		})
	}
	t.Run("the sample itself", func(t *testing.T) {
		s, _ := newService(t, "sqlite")
		res, err := s.Import(context.Background(), strings.NewReader(exportOf(t, sampleRecords())))
		if err != nil {
			t.Fatal(err)
		}
		if want := (ExportCounts{Registries: 1, Config: 1, Rules: 1, Texts: 1, Events: 2, Pending: 1}); res.Added != want {
			t.Errorf("added %+v, want %+v", res.Added, want)
		}
	})
}

// TestImportRedactsSecrets: a token in an event's text or agent output, in
// a confirmation, in a user rule's text (and its template) or in a
// registry's YAML is replaced by its placeholder before it is stored, as
// Record, AddRule and a registry sync replace it, and the import says how
// many it replaced.
func TestImportRedactsSecrets(t *testing.T) {
	recs := sampleRecords()
	nth(recs, "event", 1).Event.UserText = "never paste " + fakeGitHubToken + " into a commit"
	nth(recs, "event", 1).Event.AgentOutput = "pushed with the token " + fakeGitHubToken
	nth(recs, "pending", 0).Pending.Text = "that token " + fakeGitHubToken + " must not be logged"
	nth(recs, "rule", 0).Rule.Text = "Call the API with " + fakeGitHubToken
	nth(recs, "text", 0).Text.Text = nth(recs, "rule", 0).Rule.Text
	nth(recs, "registry", 0).Registry.YAML = []byte(strings.Replace(teamYAML, "template: Never force-push to main",
		"template: Never force-push to main with "+fakeGitHubToken, 1))
	s, db := newService(t, "sqlite")
	res, err := s.Import(context.Background(), strings.NewReader(exportOf(t, recs)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Redacted != 6 {
		t.Errorf("redacted %d secrets, want 6", res.Redacted)
	}
	regs, err := db.Registries(context.Background())
	if err != nil || len(regs) != 1 || strings.Contains(string(regs[0].YAML), fakeGitHubToken) ||
		!strings.Contains(string(regs[0].YAML), "[REDACTED:github-pat]") || regs[0].SHA256 != store.TextSHA256(string(regs[0].YAML)) {
		t.Errorf("registries %+v, %v: want the YAML with its placeholder, under its own digest", regs, err)
	}
	stored := string(mustExport(t, s))
	if strings.Contains(stored, fakeGitHubToken) {
		t.Errorf("the token was stored: %s", stored)
	}
	if n := strings.Count(stored, "[REDACTED:github-pat]"); n != 5 {
		t.Errorf("%d placeholders stored, want 5", n)
	}
	texts, err := db.RuleTexts(context.Background(), "user.keep-functions-short")
	if err != nil || len(texts) != 1 || texts[0].SHA256 != store.TextSHA256(texts[0].Text) || texts[0].Text != "Call the API with [REDACTED:github-pat]" {
		t.Errorf("texts %+v, %v: want the template with its placeholder, under its own digest", texts, err)
	}
	hist, err := db.History(context.Background(), "user.keep-functions-short", 0, 0)
	if err != nil || len(hist) != 2 || !strings.Contains(hist[1].UserText, "[REDACTED:github-pat]") {
		t.Errorf("history %+v, %v: want the reinforcement with its placeholder", hist, err)
	}
}
