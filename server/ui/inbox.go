package ui

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// inboxPage is what waits for a person: pending confirmations, candidate
// rules and exception proposals.
type inboxPage struct {
	Pending    []engine.Pending
	Candidates []engine.RuleView
	Exceptions []engine.RuleView
	// RuleIDs are the rules a confirmation may be given to or a candidate
	// merged into (every rule that is not archived or a candidate).
	RuleIDs []string
	Done    string
}

func (p *inboxPage) title() (string, string) { return "Inbox", "inbox" }

// done are the messages shown after an action redirects (?done=CODE).
var done = map[string]string{
	"accepted":  "Confirmation accepted: the evidence is on the rule.",
	"rejected":  "Confirmation rejected: nothing was recorded.",
	"new_rule":  "A new candidate rule was proposed from the correction.",
	"candidate": "Candidate accepted.",
	"dropped":   "Candidate rejected.",
	"edited":    "Rule saved.",
	"archived":  "Rule archived.",
	"restored":  "Rule restored.",
	"merged":    "Candidate merged into this rule.",
	"retracted": "Event retracted: its rule no longer counts it.",
}

// loadInbox reads the session's inbox (without RuleIDs).
func loadInbox(ctx context.Context, mem Memory) (*inboxPage, error) {
	pend, err := mem.ListConfirmations(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	cands, err := mem.ListRules(ctx, memory.RulesQuery{Status: string(engine.StatusCandidate)})
	if err != nil {
		return nil, err
	}
	p := &inboxPage{Pending: pend.Confirmations}
	for _, r := range cands.Rules {
		if r.ExceptionOf != "" {
			p.Exceptions = append(p.Exceptions, r)
		} else {
			p.Candidates = append(p.Candidates, r)
		}
	}
	return p, nil
}

// targetIDs lists the rules evidence may go to: not archived, not candidates.
func targetIDs(ctx context.Context, mem Rules) ([]string, error) {
	all, err := mem.ListRules(ctx, memory.RulesQuery{Status: string(engine.StatusActiveEligible)})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(all.Rules))
	for i, r := range all.Rules {
		ids[i] = r.RuleID
	}
	return ids, nil
}

func (u *UI) inbox(rc *reqCtx) error {
	p, err := loadInbox(rc.ctx(), rc.mem)
	if err != nil {
		return err
	}
	if p.RuleIDs, err = targetIDs(rc.ctx(), rc.mem); err != nil {
		return err
	}
	p.Done = done[rc.r.URL.Query().Get("done")]
	u.render(rc, http.StatusOK, "inbox", p)
	return nil
}

// confirm resolves a pending confirmation: action accept (to the rule
// picked, typed, or the top candidate), reject or new, in the direction
// picked (polarity 1: the words support the rule; −1: they contradict it).
func (u *UI) confirm(rc *reqCtx) error {
	id, err := strconv.ParseInt(rc.r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return engine.Errorf(engine.EINVALID, "confirmation id %q is not a positive whole number", rc.r.PathValue("id"))
	}
	action := rc.r.PostFormValue("action")
	var pol engine.Polarity // 0: the confirmation's own
	if v := rc.r.PostFormValue("polarity"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return engine.Errorf(engine.EINVALID, "polarity %q: want 1 (the words support the rule) or -1 (they contradict it)", clipForm(v))
		}
		if pol, err = engine.ParseGivenPolarity(n); err != nil {
			return err
		}
	}
	if action == memory.ActionReject {
		pol = 0
	}
	rule := ""
	if action == memory.ActionAccept {
		rule = strings.TrimSpace(rc.r.PostFormValue("other"))
		if rule == "" {
			rule = rc.r.PostFormValue("rule")
		}
	}
	res, err := rc.mem.Confirm(rc.ctx(), id, action, rule, pol, time.Time{})
	if err != nil {
		return err
	}
	return rc.redirect("/?done=" + url.QueryEscape(res.Status))
}

// reviewCandidate accepts or rejects a candidate rule or exception
// proposal; an accepted candidate is filed under an id and category of its
// own (memory.Service.AcceptCandidate), as the API does.
func (u *UI) reviewCandidate(accept bool) func(*reqCtx) error {
	return func(rc *reqCtx) error {
		var err error
		if accept {
			_, err = rc.mem.AcceptCandidate(rc.ctx(), rc.r.PathValue("id"), memory.AcceptAs{}, time.Time{})
		} else {
			_, err = rc.mem.ReviewCandidate(rc.ctx(), rc.r.PathValue("id"), false, time.Time{})
		}
		if err != nil {
			return err
		}
		code := "dropped"
		if accept {
			code = "candidate"
		}
		return rc.redirect(withDone(safeNext(rc.r.PostFormValue("back")), code))
	}
}

// mergeRule merges a candidate into the rule named by the form's "into".
func (u *UI) mergeRule(rc *reqCtx) error {
	into := strings.TrimSpace(rc.r.PostFormValue("into"))
	if into == "" {
		return engine.Errorf(engine.EINVALID, "name the rule to merge the candidate into")
	}
	v, err := rc.mem.MergeRule(rc.ctx(), rc.r.PathValue("id"), into, time.Time{})
	if err != nil {
		return err
	}
	return rc.redirect(withDone(rulePath(v.RuleID), "merged"))
}

// withDone adds ?done=code to a path on this site.
func withDone(p, code string) string {
	u, err := url.Parse(p)
	if err != nil {
		return "/?done=" + code
	}
	q := u.Query()
	q.Set("done", code)
	u.RawQuery = q.Encode()
	return u.String()
}

// rulePath is the page of rule id.
func rulePath(id string) string { return "/rules/" + url.PathEscape(id) }

// clipForm shortens a form value quoted in an error message.
func clipForm(v string) string {
	if len(v) > 32 {
		return engine.CutAtRune(v, 29) + "..."
	}
	return v
}
