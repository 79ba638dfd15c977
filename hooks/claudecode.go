package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/lexsona/lexsona/classifier"
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

// Backend is what the hook needs from LexSona: the persona of a scope, and the
// classifier's Classify and Record (the same code the CLI and the service
// run). Persona must not need the embedder, so that SessionStart stays fast.
type Backend interface {
	// Scope is the scope of the session ev comes from. The command hook,
	// which runs as the user inside the project, detects it from the
	// project's files (DetectScope); the service's HTTP route never reads
	// its own files on a caller's say-so (CwdScope, DetectScopeWithin).
	Scope(ctx context.Context, ev Event) (engine.Scope, error)
	Persona(ctx context.Context, scope engine.Scope) (string, error)
	Classify(ctx context.Context, text string, scope engine.Scope) (classifier.Result, error)
	Record(ctx context.Context, c engine.Correction) (memory.RecordResponse, error)
	// Enforced returns the must rules in force for scope that carry
	// checks (see Enforcements); like Persona it must not need the embedder.
	Enforced(ctx context.Context, scope engine.Scope) ([]Enforcement, error)
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

// HandleClaudeCode answers one Claude Code event:
//   - SessionStart: the persona of the session's scope (Backend.Scope) as
//     additionalContext;
//   - UserPromptSubmit: the prompt is classified; a CORRECT[rule_id]: prompt
//     or an auto match of a known rule is recorded (a contradiction as a
//     counterexample) with the session id as frame id, and the answer tells
//     the agent what was recorded; a confirm-band match becomes a note asking
//     the agent to confirm with the user; anything else records and says
//     nothing (a free prompt never proposes a candidate rule);
//   - PreToolUse: a call matching the check of a must rule in force for the
//     session's scope is denied with the rule's text as the reason; any
//     other gets nil (no decision);
//   - every other event: nil.
//
// Errors are the backend's; the caller fails open.
func HandleClaudeCode(ctx context.Context, ev Event, b Backend) (*Output, error) {
	switch ev.HookEventName {
	case EventSessionStart:
		scope, err := b.Scope(ctx, ev)
		if err != nil {
			return nil, err
		}
		persona, err := b.Persona(ctx, scope)
		if err != nil {
			return nil, err
		}
		return contextOutput(ev.HookEventName, persona), nil
	case EventUserPromptSubmit:
		return handlePrompt(ctx, ev, b)
	case EventPreToolUse:
		return handleToolUse(ctx, ev, b)
	}
	return nil, nil
}

func handlePrompt(ctx context.Context, ev Event, b Backend) (*Output, error) {
	if strings.TrimSpace(ev.Prompt) == "" {
		return nil, nil
	}
	scope, err := b.Scope(ctx, ev)
	if err != nil {
		return nil, err
	}
	res, err := b.Classify(ctx, ev.Prompt, scope)
	if err != nil {
		return nil, err
	}
	switch res.Decision {
	case classifier.DecisionAutoMatch, classifier.DecisionExplicit:
		rec, err := b.Record(ctx, engine.Correction{UserText: ev.Prompt, Scope: scope, FrameID: ev.SessionID})
		if err != nil {
			return nil, err
		}
		if rec.RecordResult == nil {
			return nil, nil
		}
		advice := "Follow that rule from now on."
		if rec.EventType == engine.EventCounterexample {
			advice = "Here the user does not want that rule applied."
		}
		return contextOutput(ev.HookEventName, fmt.Sprintf(
			"LexSona recorded this prompt as a %s of rule [%s] (%s, score %.2f). %s",
			rec.EventType, rec.RuleID, rec.Decision, rec.Score, advice)), nil
	case classifier.DecisionConfirm:
		flag := ""
		if res.Polarity == engine.Counter {
			flag = " --counter"
		}
		return contextOutput(ev.HookEventName, fmt.Sprintf(
			"LexSona: this prompt may be a correction about rule [%s] (score %.2f, below the automatic band). "+
				"Before acting on it, ask the user whether they are correcting you on that rule. If they confirm, record it with "+
				"`lexsona record --rule %s%s --frame %s --text \"<their words>\"`; if not, do nothing.",
			res.RuleID, res.Score, res.RuleID, flag, ev.SessionID)), nil
	}
	return nil, nil
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
