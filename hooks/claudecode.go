package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

// Claude Code hook event names LexSona answers.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventPreToolUse       = "PreToolUse"
)

// AgentClaude is the agent family of Claude Code sessions.
const AgentClaude = "claude"

// MaxEventSize bounds the event JSON read from stdin.
const MaxEventSize = 8 << 20

// Event is the JSON Claude Code sends a command hook on stdin: the common
// fields, plus source (SessionStart), prompt (UserPromptSubmit) and the tool
// call (PreToolUse). Fields LexSona does not use are ignored.
type Event struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	Source         string          `json:"source,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
}

// Output is the JSON a hook answers on stdout. A nil *Output means "nothing
// to say": the hook prints nothing and Claude Code goes on as without it (for
// PreToolUse that is the normal permission flow, not an approval).
type Output struct {
	HookSpecificOutput SpecificOutput `json:"hookSpecificOutput"`
}

// SpecificOutput is Output's hookSpecificOutput.
type SpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// FrameID is a session id as a frame id: itself when it fits the 256
// bytes a frame id holds and is clean text, else its hash (an odd session
// id is not an error of the user's, and must not stop a capture).
func FrameID(session string) string {
	if len(session) <= 256 && engine.ValidateLine("session id", session) == nil {
		return session
	}
	sum := sha256.Sum256([]byte(session))
	return "session-sha256:" + hex.EncodeToString(sum[:])
}

// AgentGenerated reports whether a UserPromptSubmit prompt was written by
// Claude Code rather than typed by the user: a background task's
// notification, a slash command's expansion, a reminder. Such prompts are
// never captured.
func AgentGenerated(prompt string) bool {
	p := strings.TrimSpace(prompt)
	for _, tag := range []string{"<task-notification>", "<command-name>", "<command-message>", "<local-command-stdout>", "<system-reminder>"} {
		if strings.HasPrefix(p, tag) {
			return true
		}
	}
	return false
}

// ReadEvent decodes one event from r. Errors: EINVALID for JSON that does not
// decode or lacks hook_event_name; ETOOLARGE over MaxEventSize.
func ReadEvent(r io.Reader) (Event, error) {
	var ev Event
	data, err := io.ReadAll(io.LimitReader(r, MaxEventSize+1))
	if err != nil {
		return ev, engine.Errorf(engine.EINVALID, "cannot read the hook event: %v", err)
	}
	if len(data) > MaxEventSize {
		return ev, engine.Errorf(engine.ETOOLARGE, "hook event larger than %d bytes", MaxEventSize)
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return ev, engine.Errorf(engine.EINVALID, "hook event is not JSON: %v", err)
	}
	if ev.HookEventName == "" {
		return ev, engine.Errorf(engine.EINVALID, "hook event without hook_event_name")
	}
	return ev, nil
}

// HandleClaudeCode answers one Claude Code event with uc's use cases, in
// the session scope scope gives:
//   - SessionStart: the persona of the session's scope (nothing when no
//     rule is in force) and AgentInstruction as additionalContext,
//     followed, unless o.Notes is NotesOff, by one line saying how many of
//     the project's suggestions wait for review and where;
//   - UserPromptSubmit: the prompt is captured (UseCases.Capture: review
//     first) with the session id as frame id.
//     Only evidence recorded on a rule is told to the agent, in one line; a
//     pending confirmation (confirm band) or a proposed rule goes to the
//     inbox silently — with o.Notes NotesAsk a pending confirmation is also
//     a note asking the agent to check with the user; a prompt the gate
//     turns away gets no answer at all;
//   - PreToolUse: a call matching the check of a must rule in force for the
//     session's scope is denied with the rule's text as the reason; any
//     other gets nil (no decision);
//   - every other event: nil.
//
// Errors are uc's; the caller fails open.
func HandleClaudeCode(ctx context.Context, ev Event, uc UseCases, scope ScopeFunc, o Options) (*Output, error) {
	switch ev.HookEventName {
	case EventSessionStart:
		return handleSessionStart(ctx, ev, uc, scope, o)
	case EventUserPromptSubmit:
		return handlePrompt(ctx, ev, uc, scope, o)
	case EventPreToolUse:
		return handleToolUse(ctx, ev, uc, scope)
	}
	return nil, nil
}

func handleSessionStart(ctx context.Context, ev Event, uc UseCases, scopeOf ScopeFunc, o Options) (*Output, error) {
	scope, err := scopeOf(ctx, ev)
	if err != nil {
		return nil, err
	}
	p, err := persona(ctx, uc, scope)
	if err != nil {
		return nil, err
	}
	parts := []string{}
	if p != "" {
		parts = append(parts, strings.TrimRight(p, "\n"))
	}
	parts = append(parts, AgentInstruction)
	if o.Notes != NotesOff {
		rc, err := uc.Review(ctx, scope)
		if err != nil {
			return nil, err
		}
		if line := reviewLine(rc, o.ReviewURL); line != "" {
			parts = append(parts, line)
		}
	}
	return contextOutput(ev.HookEventName, strings.Join(parts, "\n\n")+"\n"), nil
}

func handlePrompt(ctx context.Context, ev Event, uc UseCases, scopeOf ScopeFunc, o Options) (*Output, error) {
	if strings.TrimSpace(ev.Prompt) == "" || AgentGenerated(ev.Prompt) {
		return nil, nil
	}
	scope, err := scopeOf(ctx, ev)
	if err != nil {
		return nil, err
	}
	res, err := uc.Capture(ctx, engine.Correction{UserText: ev.Prompt, Scope: scope, FrameID: FrameID(ev.SessionID), IdempotencyKey: o.IdempotencyKey})
	if err != nil {
		return nil, err
	}
	switch res.Action {
	case memory.CaptureRecorded:
		advice := "Follow that rule from now on."
		if res.EventType == engine.EventCounterexample {
			advice = "Here the user does not want that rule applied."
		}
		return contextOutput(ev.HookEventName, fmt.Sprintf(
			"LexSona recorded this prompt as a %s of rule [%s]%s (%s). %s",
			res.EventType, res.RuleID, ruleText(res), res.Decision, advice)), nil
	case memory.CaptureStated:
		return contextOutput(ev.HookEventName, fmt.Sprintf(
			"LexSona stored what the user asked to remember as rule [%s]%s. Follow it from now on.",
			res.RuleID, ruleText(res))), nil
	case memory.CapturePending:
		if o.Notes != NotesAsk || len(res.Candidates) == 0 {
			return nil, nil
		}
		flag := ""
		if res.Polarity == engine.Counter {
			flag = " --counter"
		}
		rule := res.Candidates[0].RuleID
		return contextOutput(ev.HookEventName, fmt.Sprintf(
			"LexSona: this prompt may be a correction about rule [%s] (score %.2f, below the automatic band). "+
				"Before acting on it, ask the user whether they are correcting you on that rule. If they confirm, record it with "+
				"`lexsona record --rule %s%s --frame %s --text \"<their words>\"`; if not, do nothing.",
			rule, res.Score, rule, flag, ev.SessionID)), nil
	}
	return nil, nil
}

// ruleText is ` "TEXT"` for the rule a capture recorded on, "" when the
// response does not carry its text.
func ruleText(r memory.CaptureResponse) string {
	if r.RuleText == "" {
		return ""
	}
	return fmt.Sprintf(" %q", r.RuleText)
}

// EncodeOutput is the JSON of o as the hook answers it, on stdout or in an
// HTTP response: one line, < > & left as they are; nil for a nil o (no
// answer).
func EncodeOutput(o *Output) ([]byte, error) {
	if o == nil {
		return nil, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return nil, engine.Errorf(engine.EINTERNAL, "hook answer: %v", err)
	}
	return b.Bytes(), nil
}

func contextOutput(event, text string) *Output {
	return &Output{HookSpecificOutput: SpecificOutput{HookEventName: event, AdditionalContext: text}}
}
