package ui

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// learnedPage is what was learned in the last week: the evidence recorded
// (each with a button that retracts it), the suggestions waiting, and what
// the hooks captured and what each prompt became.
type learnedPage struct {
	memory.Learned
	Done string
}

func (p *learnedPage) title() (string, string) { return "Learned recently", "learned" }

// learnedWindow is how far back the page looks.
const learnedWindow = 7 * 24 * time.Hour

func (u *UI) learned(rc *reqCtx) error {
	l, err := rc.mem.Learned(rc.ctx(), rc.mem.Now().Add(-learnedWindow), 0)
	if err != nil {
		return err
	}
	u.render(rc, http.StatusOK, "learned", &learnedPage{Learned: l, Done: done[rc.r.URL.Query().Get("done")]})
	return nil
}

// retract takes back a recorded event (memory.Service.Retract).
func (u *UI) retract(rc *reqCtx) error {
	id, err := strconv.ParseInt(rc.r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return engine.Errorf(engine.EINVALID, "event id %q is not a positive whole number", clipForm(rc.r.PathValue("id")))
	}
	if _, err := rc.mem.Retract(rc.ctx(), id, time.Time{}); err != nil {
		return err
	}
	return rc.redirect(withDone(safeNext(rc.r.PostFormValue("back")), "retracted"))
}
