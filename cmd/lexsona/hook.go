package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

// hookBackend is hooks.Backend over the CLI's store and core, each opened on
// first use: SessionStart reads the store only, never loads the model.
type hookBackend struct{ a *app }

// Scope detects the session's scope from the project's files: the command
// hook runs as the user, inside the project (its cwd when the event has
// none).
func (h hookBackend) Scope(_ context.Context, ev hooks.Event) (engine.Scope, error) {
	dir := ev.Cwd
	if dir == "" {
		dir = "."
	}
	return hooks.DetectScope(dir, hooks.AgentClaude)
}

func (h hookBackend) Persona(ctx context.Context, scope engine.Scope) (string, error) {
	mem, err := h.a.openMemory(ctx)
	if err != nil {
		return "", err
	}
	snap, err := mem.Persona(ctx, memory.PersonaRequest{Scope: scope})
	return snap.Prompt, err
}

func (h hookBackend) Enforced(ctx context.Context, scope engine.Scope) ([]hooks.Enforcement, error) {
	mem, err := h.a.openMemory(ctx)
	if err != nil {
		return nil, err
	}
	return hooks.Enforced(ctx, mem, scope)
}

func (h hookBackend) RecordViolation(ctx context.Context, v memory.Violation) (memory.ViolationResult, error) {
	mem, err := h.a.openMemory(ctx)
	if err != nil {
		return memory.ViolationResult{}, err
	}
	return mem.RecordViolation(ctx, v)
}

func (h hookBackend) Capture(ctx context.Context, c engine.Correction) (memory.CaptureResponse, error) {
	core, err := h.a.openCore(ctx)
	if err != nil {
		return memory.CaptureResponse{}, err
	}
	return core.Memory.Capture(ctx, c)
}

// Review counts the inbox from the store alone: SessionStart never loads
// the model.
func (h hookBackend) Review(ctx context.Context) (memory.ReviewCount, error) {
	mem, err := h.a.openMemory(ctx)
	if err != nil {
		return memory.ReviewCount{}, err
	}
	return mem.Review(ctx)
}

func newHookCmd(a *app) *cobra.Command {
	var notes string
	c := &cobra.Command{
		Use:   "hook claude-code",
		Short: "Answer one agent hook event (JSON on stdin, JSON on stdout); installed by `lexsona hooks install`",
		Long: `Reads one Claude Code hook event on stdin and answers on stdout:
SessionStart gets the persona of the session's scope as additional context,
and one line saying how many corrections wait for review (--notes);
UserPromptSubmit passes the prompt through the correction gate: a prompt that
is not a correction or standing instruction is left alone; one that is gets
recorded on its rule (auto band, or CORRECT[rule_id]:) with the session id as
frame id and the agent is told so, or goes silently to the inbox as a
pending confirmation (confirm band) or a proposed rule (no rule fits);
PreToolUse denies a tool call that matches the enforce check of a must rule
in force for the session's scope, and records the denied call as a violation
on the rule's receipts (its confidence unchanged; see lexsona why RULE).
Other events get no answer. It fails open: on any error it prints one line on
stderr, nothing on stdout, and exits 0, so the agent is never blocked. A deny
whose violation could not be recorded is still printed, with one line on
stderr. Every event is bounded by 2 s as a whole: past it, or on SIGTERM,
the hook prints one line on stderr and exits 0.`,
		// Exit code 2 blocks a Claude Code prompt or tool call: even a wrong
		// invocation of the hook fails open.
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] != "claude-code" {
				fmt.Fprintf(a.stderr, "lexsona hook: want `lexsona hook claude-code`, got %q (ignored; the agent goes on)\n", args)
				return nil
			}
			// The hook's stderr carries one line on failure and nothing else:
			// the embedder's and the registry sync's diagnostics are dropped.
			errw := a.stderr
			a.stderr = io.Discard
			out, err := runClaudeHookWithin(cmd.Context(), a, hooks.Options{Notes: notes}, HookDeadline)
			if !a.abandoned {
				a.stderr = errw
			}
			switch {
			case errors.Is(err, hooks.ErrNotRecorded):
				msg := hookErrText(err)
				if !strings.HasPrefix(msg, hooks.ErrNotRecorded.Error()) {
					msg = hooks.ErrNotRecorded.Error() + ": " + msg
				}
				fmt.Fprintf(errw, "lexsona hook: %s (the call is denied all the same)\n", strings.ReplaceAll(msg, "\n", " "))
			case err != nil:
				fmt.Fprintf(errw, "lexsona hook: %s (ignored; the agent goes on)\n", strings.ReplaceAll(hookErrText(err), "\n", " "))
				return nil
			}
			if out != nil {
				_, err := a.stdout.Write(out)
				return err
			}
			return nil
		},
	}
	c.Flags().StringVar(&notes, "notes", cmp.Or(a.cfg.HookNotes, hooks.NotesSession),
		"what the hook tells the agent about corrections waiting for review: session (one line at session start), off, or ask (also a note mid-task for each possible correction) (env LEXSONA_HOOK_NOTES)")
	return c
}

// HookDeadline bounds every hook event as a whole: reading the event, the
// scope, the store and the model. Past it the hook fails open.
const HookDeadline = 2 * time.Second

// runClaudeHookWithin is runClaudeHook bounded by d and by ctx (which the
// process's SIGINT and SIGTERM cancel): when either ends first it returns an
// error saying so at once, marks a abandoned, and leaves the event's work to
// end with the process.
func runClaudeHookWithin(ctx context.Context, a *app, o hooks.Options, d time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := runClaudeHook(ctx, a, o)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		a.abandoned = true
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %s", d)
		}
		return nil, errors.New("stopped by a signal")
	}
}

// runClaudeHook reads the event and returns the bytes to print (nil for
// none). Every error is returned before anything is printed; one wrapping
// hooks.ErrNotRecorded comes with the deny to print all the same.
func runClaudeHook(ctx context.Context, a *app, o hooks.Options) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	ev, err := hooks.ReadEvent(a.stdin)
	if err != nil {
		return nil, err
	}
	if o.Notes, err = hooks.ParseNotes(o.Notes); err != nil {
		return nil, err
	}
	res, err := hooks.HandleClaudeCode(ctx, ev, hookBackend{a}, o)
	if err != nil && !errors.Is(err, hooks.ErrNotRecorded) {
		return nil, err
	}
	data, encErr := hooks.EncodeOutput(res)
	if encErr != nil {
		return nil, encErr
	}
	return data, err
}

func hookErrText(err error) string {
	if engine.ErrorCode(err) == engine.EINTERNAL {
		return err.Error()
	}
	return engine.ErrorMessage(err)
}
