package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValidateCorrectionTime(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		at   time.Time
		want string // "" for no error
	}{
		{"now", now, ""},
		{"backfill a year ago", now.AddDate(-1, 0, 0), ""},
		{"clock a little ahead", now.Add(MaxClockSkew), ""},
		{"just past the skew", now.Add(MaxClockSkew + time.Second), "correction time 2026-11-21T12:05:01Z is in the future (the clock here says 2026-11-21T12:00:00Z)"},
		{"years ahead, other zone", time.Date(2030, 1, 1, 1, 0, 0, 0, time.FixedZone("CET", 3600)), "correction time 2030-01-01T00:00:00Z is in the future"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateCorrectionTime(tc.at, now)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.want) {
				t.Fatalf("got %v (code %s), want %s containing %q", err, ErrorCode(err), EINVALID, tc.want)
			}
		})
	}
}

// correctionWithScope is a valid correction whose scope is sc.
func correctionWithScope(sc Scope) Correction {
	return Correction{RuleID: "tool.no-sed", Polarity: Reinforce, UserText: "stop using sed", Scope: sc, At: t0}
}

// TestCorrectionValidateIsPure: Validate reports the same outcome as
// Normalize but never changes the correction, valid or not.
func TestCorrectionValidateIsPure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scope Scope
		code  string
		msg   string
	}{
		{"empty scope", Scope{}, "", ""},
		{"normal scope", Scope{Environment: "work", ContextTags: []string{"cli", "go"}}, "", ""},
		{"scope needing normal form", Scope{Environment: " Work ", Project: "LexSona", ContextTags: []string{"go", "CLI", "go"}, ExcludeTags: []string{"Legacy"}}, "", ""},
		{"bad context tag", Scope{Environment: " Work ", ContextTags: []string{"a b"}}, EINVALID, `context tag "a b"`},
		{"bad project", Scope{Project: "My Project"}, EINVALID, "scope project"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := correctionWithScope(tc.scope)
			before := correctionWithScope(tc.scope)
			checkErr(t, tc.name, c.Validate(), tc.code, tc.msg)
			if d := cmp.Diff(before, c); d != "" {
				t.Errorf("Validate changed the correction (-before +after)\n%s", d)
			}
		})
	}
}

// TestCorrectionNormalize: Normalize validates like Validate and, on success
// only, leaves the scope in normal form (trimmed, lower-cased, tags sorted
// and unique, empty tag lists nil); every other field stays as it was.
func TestCorrectionNormalize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		edit      func(*Correction)
		code      string
		msg       string
		wantScope Scope // the scope after a successful Normalize
	}{
		{"empty scope", func(*Correction) {}, "", "", Scope{}},
		{"trimmed and lower-cased", func(c *Correction) {
			c.Scope = Scope{Environment: " Work ", Project: "LexSona", AgentFamily: "Claude"}
		}, "", "", Scope{Environment: "work", Project: "lexsona", AgentFamily: "claude"}},
		{"tags sorted and unique", func(c *Correction) {
			c.Scope = Scope{ContextTags: []string{"go", "CLI", "go"}, ExcludeTags: []string{"Legacy", "legacy"}}
		}, "", "", Scope{ContextTags: []string{"cli", "go"}, ExcludeTags: []string{"legacy"}}},
		{"blank tags dropped", func(c *Correction) { c.Scope = Scope{ContextTags: []string{" ", ""}} }, "", "", Scope{}},
		{"bad scope left as it was", func(c *Correction) {
			c.Scope = Scope{Environment: " Work ", ContextTags: []string{"a b"}}
		}, EINVALID, `context tag "a b"`, Scope{}},
		{"bad text, scope left as it was", func(c *Correction) {
			c.UserText, c.Scope = "", Scope{Environment: " Work "}
		}, EINVALID, "correction text is empty", Scope{}},
		{"no time", func(c *Correction) { c.At = time.Time{} }, EINVALID, "correction time is not set", Scope{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := correctionWithScope(Scope{})
			tc.edit(&c)
			before := c
			before.Scope.ContextTags = append([]string(nil), c.Scope.ContextTags...)
			before.Scope.ExcludeTags = append([]string(nil), c.Scope.ExcludeTags...)
			err := c.Normalize()
			checkErr(t, tc.name, err, tc.code, tc.msg)
			if (err == nil) != (before.Validate() == nil) {
				t.Errorf("Normalize error %v, but Validate on the same correction says %v", err, before.Validate())
			}
			want := before
			if err == nil {
				want.Scope = tc.wantScope
			}
			if d := cmp.Diff(want, c); d != "" {
				t.Errorf("correction after Normalize (-want +got)\n%s", d)
			}
		})
	}
}
