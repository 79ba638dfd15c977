package eval

import (
	"time"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/redact"
)

// Routes a captured prompt takes before the classifier reads it, as
// memory.Service.Capture takes them.
const (
	// RouteProse: the prompt's prose is judged by the gate and may become
	// a suggestion.
	RouteProse = "prose"
	// RouteExplicit: CORRECT[rule_id]: or "remember: …" (the automatic
	// band, not the gate's).
	RouteExplicit = "explicit"
	// RouteIgnored: nothing to judge (empty once cleaned, only pasted log
	// or code, a text the classifier refuses).
	RouteIgnored = "ignored"
)

// capturedProse is the text memory.Capture hands the classifier for a
// prompt nobody marked, and the route it takes: cut to
// engine.MaxCaptureBytes, cleaned (engine.CleanText), explicit forms set
// aside, the prose kept (engine.Prose), checked as the classifier checks a
// text, normalised and redacted (memory.NormalizeCorrection, redact).
func capturedProse(text string) (prose, route string) {
	text, _ = engine.CleanText(engine.CutAtRune(text, engine.MaxCaptureBytes))
	if _, _, explicit, err := classifier.ParseExplicit(text); err != nil {
		return "", RouteIgnored
	} else if explicit {
		return "", RouteExplicit
	}
	if _, ok := classifier.ParseRemember(text); ok {
		return "", RouteExplicit
	}
	p := engine.Prose(text).Text
	if len(p) > engine.MaxUserTextLength || engine.ValidateCorrectionText("prompt", p) != nil {
		return "", RouteIgnored
	}
	c, err := memory.NormalizeCorrection(engine.Correction{UserText: p, Scope: engine.Scope{AgentFamily: "claude"}}, time.Unix(0, 0).UTC())
	if err != nil {
		return "", RouteIgnored
	}
	redact.Strings(&c.UserText)
	return c.UserText, RouteProse
}
