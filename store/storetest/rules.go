package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

func testCreateAndGetRule(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	in := engine.Rule{
		RuleID: "tool.no-sed-for-file-editing", Category: "tool_preference", Severity: engine.SeverityMust,
		Text:  "Never use sed to edit files",
		Scope: engine.Scope{Environment: "Work", Project: "api", ContextTags: []string{"cli", "CLI", "php"}},
		Topic: "file-editing", FirstSeen: t0, LastCorrection: t0,
	}
	got, err := CreateRule(db, in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.Scope = engine.Scope{Environment: "work", Project: "api", ContextTags: []string{"cli", "php"}}
	want.Alpha, want.Beta, want.Status, want.Source = 2, 5, engine.StatusActiveEligible, engine.SourceUser
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreateRule (-want +got):\n%s", diff)
	}
	again, err := db.GetRule(ctx, in.RuleID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("GetRule (-created +loaded):\n%s", diff)
	}
	hist, err := db.History(ctx, in.RuleID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].EventType != engine.EventCreation || hist[0].Alpha != 2 || hist[0].Beta != 5 || !hist[0].At.Equal(t0) {
		t.Errorf("history %+v, want one creation event at the prior", hist)
	}
	texts, err := db.RuleTexts(ctx, in.RuleID)
	if err != nil {
		t.Fatal(err)
	}
	wantTexts := []store.RuleText{{RuleID: in.RuleID, Kind: store.KindTemplate, Text: in.Text, SHA256: store.TextSHA256(in.Text)}}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	_, err = CreateRule(db, in)
	WantCode(t, err, engine.ECONFLICT)
}

func testCreateRuleBadInputWritesNothing(t *testing.T, open Opener) {
	db := open(t)
	good := engine.NewRule("tool.ok", "tool_preference", engine.SeverityShould, "text", engine.Scope{}, engine.DefaultConfig(), t0)
	for _, tc := range []struct {
		name string
		edit func(r *engine.Rule)
		code string
		msg  string
	}{
		{"unknown severity", func(r *engine.Rule) { r.Severity = "sometimes" }, engine.EINVALID, `unknown severity "sometimes"`},
		{"empty text", func(r *engine.Rule) { r.Text = "  " }, engine.EINVALID, "rule text is empty"},
		{"bad rule id", func(r *engine.Rule) { r.RuleID = "Tool..X" }, engine.EINVALID, `malformed rule id "Tool..X"`},
		{"empty rule id", func(r *engine.Rule) { r.RuleID = "" }, engine.EINVALID, "rule id is empty"},
		{"bad category", func(r *engine.Rule) { r.Category = "Tool Pref" }, engine.EINVALID, "malformed category"},
		{"invalid scope tag", func(r *engine.Rule) { r.Scope.ContextTags = []string{"ok", "no spaces"} }, engine.EINVALID, `context tag "no spaces"`},
		{"invalid project", func(r *engine.Rule) { r.Scope.Project = "-x" }, engine.EINVALID, "scope project"},
		{"text too long", func(r *engine.Rule) { r.Text = strings.Repeat("x", engine.MaxRuleTextLength+1) }, engine.ETOOLARGE, "rule text is"},
		{"negative beta", func(r *engine.Rule) { r.Beta = -1 }, engine.EINVALID, "beta"},
		{"unknown status", func(r *engine.Rule) { r.Status = "dormant" }, engine.EINVALID, "unknown status"},
		{"unknown parent", func(r *engine.Rule) { r.ExceptionOf = "tool.nowhere" }, engine.EINVALID, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good
			tc.edit(&r)
			_, err := CreateRule(db, r)
			WantCode(t, err, tc.code)
			if !strings.Contains(engine.ErrorMessage(err), tc.msg) {
				t.Errorf("message %q does not name %q", engine.ErrorMessage(err), tc.msg)
			}
			if c := MustCount(t, db); c != (store.Stats{}) {
				t.Errorf("something was written: %+v", c)
			}
		})
	}
}

func testGetRuleErrors(t *testing.T, open Opener) {
	db := open(t)
	_, err := db.GetRule(context.Background(), "tool.missing")
	WantCode(t, err, engine.ENOTFOUND)
	if !strings.Contains(err.Error(), "tool.missing") {
		t.Errorf("%v does not name the rule", err)
	}
	_, err = db.GetRule(context.Background(), "Bad Id")
	WantCode(t, err, engine.EINVALID)
}
