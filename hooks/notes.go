package hooks

import (
	"fmt"

	"github.com/lexsona/lexsona/agentfile"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// What the hooks tell the agent about the inbox (Options.Notes).
const (
	// NotesSession, the default: one line at SessionStart saying how many
	// corrections wait for review and where; nothing mid-task.
	NotesSession = "session"
	// NotesOff: never a word about the inbox.
	NotesOff = "off"
	// NotesAsk: as NotesSession, and a prompt in the confirm band also
	// becomes a note asking the agent to check with the user.
	NotesAsk = "ask"
)

// Options are how the hooks speak to the agent.
type Options struct {
	// Notes is NotesSession (also ""), NotesOff or NotesAsk.
	Notes string
	// ReviewURL is where the inbox can be reviewed (the service's review
	// page); empty: the line names `lexsona confirm` instead.
	ReviewURL string
	// IdempotencyKey, when set, records the prompt of a UserPromptSubmit
	// event once however often it is delivered (a drained spool item's key).
	IdempotencyKey string
}

// AgentInstruction is the SessionStart text that makes the agent the judge
// of what is a correction (agentfile.ReportInstruction, which the managed
// block of AGENTS.md and CLAUDE.md carries too). The hook's gate only
// suggests; what the agent reports is recorded like any correction.
const AgentInstruction = agentfile.ReportInstruction

// ParseNotes checks a notes setting; "" is NotesSession. Errors: EINVALID
// naming the value and the accepted ones.
func ParseNotes(v string) (string, error) {
	switch v {
	case "", NotesSession:
		return NotesSession, nil
	case NotesOff, NotesAsk:
		return v, nil
	}
	return "", engine.Errorf(engine.EINVALID, "hook notes %q: want session, off or ask", v)
}

// reviewLine is the SessionStart line about the inbox ("" when it is
// empty).
func reviewLine(rc memory.ReviewCount, url string) string {
	if rc.Total() == 0 {
		return ""
	}
	where := "run `lexsona confirm` and `lexsona rules list --status candidate`"
	if url != "" {
		where = "review them at " + url
	}
	return fmt.Sprintf("LexSona: %s wait for the user's review (%d possible corrections, %d proposed rules): %s. Mention this to the user once; do not act on it yourself.",
		plural(rc.Total(), "item"), rc.Pending, rc.Proposed, where)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
