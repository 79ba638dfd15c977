package memory

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
)

// NormalizeCorrection checks c and returns it in normal form: polarity 0 is
// a reinforcement, the rule id and the instruction are trimmed (an
// instruction of white space alone is none; it is checked as given,
// as openapi.json states it, engine.ValidateInstruction), the scope is in normal form
// (engine.ParseScope), the time is UTC — now when zero — and not in the
// future. Record does it; a front end may call it first to refuse bad input
// before opening anything. Errors: EINVALID or ETOOLARGE naming the first
// bad field (engine.Correction.Validate, engine.ValidateCorrectionTime).
func NormalizeCorrection(c engine.Correction, now time.Time) (engine.Correction, error) {
	if c.Polarity == 0 {
		c.Polarity = engine.Reinforce
	}
	c.RuleID = strings.TrimSpace(c.RuleID)
	raw := c.Instruction
	c.Instruction = strings.TrimSpace(raw)
	if c.Instruction != "" || utf8.RuneCountInString(raw) > engine.MaxInstructionLength {
		if err := engine.ValidateInstruction(raw); err != nil {
			return c, err
		}
	}
	now = now.UTC()
	if c.At.IsZero() {
		c.At = now
	}
	c.At = c.At.UTC()
	if err := engine.ValidateCorrectionTime(c.At, now); err != nil {
		return c, err
	}
	if err := c.Normalize(); err != nil {
		return c, err
	}
	return c, nil
}
