package ui

import (
	"net/http"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// personaPage is the persona preview of one scope: the exact block the
// agent receives and why each rule is in or out.
type personaPage struct {
	Scope    scopeForm
	Snapshot engine.Snapshot
	Why      engine.Why
	// Groups are Why's decisions by outcome, in Why's order.
	Groups []decisionGroup
}

type decisionGroup struct {
	Outcome   string
	Decisions []engine.Decision
}

func (p *personaPage) title() (string, string) { return "Persona preview", "persona" }

func (u *UI) persona(rc *reqCtx) error {
	q := rc.r.URL.Query()
	p := &personaPage{Scope: scopeFormOf(q)}
	sc, err := p.Scope.parse()
	if err != nil {
		return err
	}
	if p.Snapshot, err = rc.mem.Persona(rc.ctx(), memory.PersonaRequest{Scope: sc}); err != nil {
		return err
	}
	if p.Why, err = rc.mem.Why(rc.ctx(), sc, time.Time{}); err != nil {
		return err
	}
	for _, d := range p.Why.Decisions {
		if n := len(p.Groups); n == 0 || p.Groups[n-1].Outcome != d.Outcome {
			p.Groups = append(p.Groups, decisionGroup{Outcome: d.Outcome})
		}
		g := &p.Groups[len(p.Groups)-1]
		g.Decisions = append(g.Decisions, d)
	}
	u.render(rc, http.StatusOK, "persona", p)
	return nil
}
