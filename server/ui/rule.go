package ui

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/internal/readonly"
)

// rulePage is one rule: its state, edit form, receipts and chart.
type rulePage struct {
	Rule       engine.RuleView
	Needed     int
	Thresholds engine.Thresholds
	Events     []engine.Event // newest first
	More       bool           // older events were left out
	Chart      *chart
	Scope      scopeForm
	Severities []string
	RuleIDs    []string // merge targets, for a candidate
	// Shared: the rule's registry is shared with the session's tenant
	// read-only, so it cannot be changed here.
	Shared bool
	Done   string
}

func (p *rulePage) title() (string, string) { return "Rule " + p.Rule.RuleID, "rules" }

func (u *UI) rule(rc *reqCtx) error {
	ctx, id := rc.ctx(), rc.r.PathValue("id")
	v, err := rc.mem.GetRule(ctx, id, time.Time{})
	if err != nil {
		return err
	}
	h, err := rc.mem.History(ctx, id, 0, memory.MaxHistoryLimit)
	if err != nil {
		return err
	}
	cfg, err := rc.mem.Config(ctx)
	if err != nil {
		return err
	}
	now := u.now()
	p := &rulePage{Rule: v, Needed: engine.CorrectionsNeeded(&v.Rule, cfg, now), Thresholds: cfg.For(v.Category),
		More: h.NextAfter != 0, Chart: confidenceChart(v.Rule, h.Events, cfg, now), Scope: scopeFormFrom(v.Scope),
		Severities: severities, Shared: u.shared(rc, v), Done: done[rc.r.URL.Query().Get("done")]}
	p.Events = slices.Clone(h.Events)
	slices.Reverse(p.Events)
	if v.Status == engine.StatusCandidate && v.ExceptionOf == "" {
		if p.RuleIDs, err = targetIDs(ctx, rc.mem); err != nil {
			return err
		}
	}
	u.render(rc, http.StatusOK, "rule", p)
	return nil
}

// editRule saves the edit form: only the fields that changed are patched
// (one manual_override event); a form that changes nothing is EINVALID.
func (u *UI) editRule(rc *reqCtx) error {
	ctx, id, f := rc.ctx(), rc.r.PathValue("id"), rc.r.PostForm
	cur, err := rc.mem.GetRule(ctx, id, time.Time{})
	if err != nil {
		return err
	}
	if err := u.refuseShared(rc, cur); err != nil {
		return err
	}
	var p memory.RulePatch
	changed := func(field string, old string) *string {
		v, ok := f[field]
		if !ok || len(v) == 0 {
			return nil
		}
		s := strings.TrimSpace(strings.ReplaceAll(v[0], "\r\n", "\n"))
		if s == old {
			return nil
		}
		return &s
	}
	p.Text = changed("text", cur.Text)
	p.Category = changed("category", cur.Category)
	p.Severity = changed("severity", string(cur.Severity))
	p.Topic = changed("topic", cur.Topic)
	if _, ok := f["environment"]; ok {
		sc, err := scopeFormOf(f).parse()
		if err != nil {
			return err
		}
		if !sameScope(sc, cur.Scope) {
			p.Scope = &sc
		}
	}
	if _, err := rc.mem.EditRule(ctx, id, p, time.Time{}); err != nil {
		return err
	}
	return rc.redirect(withDone(rulePath(id), "edited"))
}

// sameScope reports whether two normalised scopes are equal.
func sameScope(a, b engine.Scope) bool {
	return a.Environment == b.Environment && a.Project == b.Project && a.AgentFamily == b.AgentFamily &&
		slices.Equal(a.ContextTags, b.ContextTags) && slices.Equal(a.ExcludeTags, b.ExcludeTags)
}

// shared reports whether v belongs to a registry the session's tenant
// receives read-only (Config.SharedReadOnly).
func (u *UI) shared(rc *reqCtx, v engine.RuleView) bool {
	return readonly.Rule(v, u.receives(rc)) != ""
}

// receives reports whether the session's tenant receives a registry
// read-only.
func (u *UI) receives(rc *reqCtx) readonly.Receives {
	return func(name string) bool { return u.readOnly(rc.sess.tenant, name) }
}

// refuseShared answers 403 when v belongs to a registry the session's
// tenant receives read-only.
func (u *UI) refuseShared(rc *reqCtx, v engine.RuleView) error {
	if msg := readonly.Rule(v, u.receives(rc)); msg != "" {
		return &httpError{http.StatusForbidden, msg}
	}
	return nil
}

// refuseSharedRule answers 403 when rule id belongs to a registry the
// session's tenant receives read-only. Any other outcome of the lookup is
// left to the action, so that an unknown id answers as it always does.
func (u *UI) refuseSharedRule(rc *reqCtx, id string) error {
	v, err := rc.mem.GetRule(rc.ctx(), id, time.Time{})
	if err != nil {
		return nil
	}
	return u.refuseShared(rc, v)
}

func (u *UI) archiveRule(rc *reqCtx) error {
	id := rc.r.PathValue("id")
	if err := u.refuseSharedRule(rc, id); err != nil {
		return err
	}
	if _, err := rc.mem.ArchiveRule(rc.ctx(), id, time.Time{}); err != nil {
		return err
	}
	return rc.redirect(withDone(rulePath(id), "archived"))
}

// restoreRule makes an archived rule active-eligible again.
func (u *UI) restoreRule(rc *reqCtx) error {
	id := rc.r.PathValue("id")
	if err := u.refuseSharedRule(rc, id); err != nil {
		return err
	}
	st := string(engine.StatusActiveEligible)
	if _, err := rc.mem.EditRule(rc.ctx(), id, memory.RulePatch{Status: &st}, time.Time{}); err != nil {
		return err
	}
	return rc.redirect(withDone(rulePath(id), "restored"))
}
