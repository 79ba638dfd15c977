package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/store"
)

// Bounds of what a violation event keeps.
const (
	// MaxViolationInput is how many bytes of the matched tool input a
	// violation keeps (after redaction); a longer input is cut at a rune
	// boundary and ends with "…".
	MaxViolationInput = 2000
	// MaxViolationTool bounds the tool name, MaxViolationCheck the field
	// and pattern quoted in the event's detail.
	MaxViolationTool  = 128
	MaxViolationCheck = 256
)

// Violation is a tool call an agent made against a rule: an enforced check
// of the rule matched it and the call was denied.
type Violation struct {
	RuleID string
	// Tool is the tool's name (Bash, Write, …); Field the input field the
	// check matched (command, file_path, …) and Pattern the check's
	// pattern.
	Tool, Field, Pattern string
	// Input is that field's value: what the agent tried to do.
	Input string
	// FrameID is the agent's session id.
	FrameID string
	Scope   engine.Scope
	// At is when the call was denied (zero: now).
	At time.Time
}

// ViolationResult is the violation event as stored: the rule's alpha and
// beta on it are the rule's own, unchanged.
type ViolationResult struct {
	Event engine.Event `json:"event"`
	// Redacted counts the secrets replaced in the input before storing.
	Redacted int `json:"redacted"`
}

// RecordViolation appends a violation event to the rule's receipts: the
// tool input (secrets replaced by placeholders, then cut to
// MaxViolationInput bytes) as the event's agent output, the frame, the
// scope, decision "deny" and a detail naming the tool, field and check. It
// adds no evidence: the rule's alpha, beta, counts and last correction stay
// as they are. Errors: EINVALID for a malformed rule id, an empty or
// multi-line tool name, a bad frame id, scope or time (in the future);
// ENOTFOUND for an unknown rule; the store's otherwise.
func (s *Service) RecordViolation(ctx context.Context, v Violation) (ViolationResult, error) {
	ev, redacted, err := violationEvent(v, s.now())
	if err != nil {
		return ViolationResult{}, err
	}
	err = s.db.Write(ctx, s.Now(), func(tx *store.Tx) error {
		r, err := tx.GetRule(ev.RuleID)
		if err != nil {
			return err
		}
		ev.Alpha, ev.Beta = r.Alpha, r.Beta
		ev.EventID, err = tx.AppendEvent(ev)
		return err
	})
	if err != nil {
		return ViolationResult{}, err
	}
	return ViolationResult{Event: ev, Redacted: redacted}, nil
}

// violationEvent validates v and builds its event (alpha and beta left to
// the caller).
func violationEvent(v Violation, now time.Time) (engine.Event, int, error) {
	v.RuleID = strings.TrimSpace(v.RuleID)
	if err := engine.ValidateRuleID(v.RuleID); err != nil {
		return engine.Event{}, 0, err
	}
	if strings.TrimSpace(v.Tool) == "" {
		return engine.Event{}, 0, engine.Errorf(engine.EINVALID, "violation without a tool name")
	}
	for _, f := range []struct{ name, value string }{{"tool name", v.Tool}, {"check field", v.Field}} {
		if err := engine.ValidateLine(f.name, f.value); err != nil {
			return engine.Event{}, 0, err
		}
	}
	if err := engine.ValidateFrameID(v.FrameID); err != nil {
		return engine.Event{}, 0, err
	}
	scope, err := engine.ParseScope(v.Scope)
	if err != nil {
		return engine.Event{}, 0, err
	}
	now = now.UTC()
	at := v.At.UTC()
	if v.At.IsZero() {
		at = now
	}
	if err := engine.ValidateCorrectionTime(at, now); err != nil {
		return engine.Event{}, 0, err
	}
	input, redacted := redact.Text(printable(v.Input, true))
	pattern, _ := redact.Text(printable(v.Pattern, false))
	detail := fmt.Sprintf("denied a %s call", cut(v.Tool, MaxViolationTool))
	if v.Field != "" {
		detail += fmt.Sprintf(": its %s matches the check %s", cut(v.Field, MaxViolationCheck), cut(pattern, MaxViolationCheck))
	}
	return engine.Event{
		RuleID: v.RuleID, EventType: engine.EventViolation, AgentOutput: cut(input, MaxViolationInput),
		FrameID: v.FrameID, Scope: scope, Decision: "deny", Detail: detail, At: at,
	}, redacted, nil
}

// cut returns s when it has at most max bytes, else its longest prefix of
// whole runes that fits in max bytes with "…" appended.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	const ellipsis = "…"
	n := max - len(ellipsis)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + ellipsis
}

// printable returns s as valid UTF-8 with every character stored text
// refuses (engine.CheckChars; tab, line feed and CRLF only when multiline)
// replaced by U+FFFD, so that whatever an agent sent can be kept.
func printable(s string, multiline bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for i, r := range s {
		ok := engine.CheckChars("", string(r), multiline) == nil
		if r == '\r' {
			ok = multiline && i+1 < len(s) && s[i+1] == '\n'
		}
		if !ok {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}
