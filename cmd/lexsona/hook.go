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

// spoolingUseCases are the command hook's use cases (hooks.UseCases): the
// memory service over this configuration's store, opened for reading alone
// on first use and never with the model — a prompt goes to the spool, and so does a denied
// call's violation; with server set, the persona comes from that service.
type spoolingUseCases struct {
	a      *app
	server string
}

// hookScope detects the session's scope from the project's files: the
// command hook runs as the user, inside the project (its cwd when the event
// has none).
func hookScope(_ context.Context, ev hooks.Event) (engine.Scope, error) {
	dir := ev.Cwd
	if dir == "" {
		dir = "."
	}
	return hooks.DetectScope(dir, hooks.AgentClaude)
}

// Persona asks the service when one is named and answers within a second,
// else the store.
func (u spoolingUseCases) Persona(ctx context.Context, req memory.PersonaRequest) (engine.Snapshot, error) {
	if u.server != "" {
		if snap, err := personaFrom(ctx, u.server, u.a.cfg.APIKey, req.Scope); err == nil {
			return snap, nil
		}
	}
	mem, err := u.a.openReader(ctx)
	if err != nil {
		return engine.Snapshot{}, err
	}
	return mem.Persona(ctx, req)
}

func (u spoolingUseCases) Enforce(ctx context.Context, scope engine.Scope, tool string, input map[string]any) (*memory.Denial, error) {
	mem, err := u.a.openReader(ctx)
	if err != nil {
		return nil, err
	}
	return mem.Enforce(ctx, scope, tool, input)
}

// RecordViolation puts the denied call on the spool: the deny never waits
// for the database.
func (u spoolingUseCases) RecordViolation(_ context.Context, v memory.Violation) (memory.ViolationResult, error) {
	if v.At.IsZero() {
		v.At = time.Now().UTC()
	}
	return memory.ViolationResult{}, u.a.spoolViolation(v, "")
}

// Capture is never called: the command hook spools prompts.
func (u spoolingUseCases) Capture(context.Context, engine.Correction) (memory.CaptureResponse, error) {
	return memory.CaptureResponse{}, engine.Errorf(engine.EINTERNAL, "the command hook spools prompts")
}

// Review counts the inbox from the store alone.
func (u spoolingUseCases) Review(ctx context.Context, scope engine.Scope) (memory.ReviewCount, error) {
	mem, err := u.a.openReader(ctx)
	if err != nil {
		return memory.ReviewCount{}, err
	}
	return mem.Review(ctx, scope)
}

func newHookCmd(a *app) *cobra.Command {
	var notes, server string
	c := &cobra.Command{
		Use:   "hook claude-code",
		Short: "Answer one agent hook event (JSON on stdin, JSON on stdout); installed by `lexsona hooks install`",
		Long: `Reads one Claude Code hook event on stdin and answers on stdout:
SessionStart gets the persona of the session's scope as additional context
(nothing when no rule is in force), a few lines asking the agent to report
the user's corrections (lexsona record, or the MCP tool record_correction),
and one line saying how many of this project's items wait for review
(--notes); it reads the store only, never loads the model.
UserPromptSubmit puts the prompt on the spool (<data folder>/spool, synced
before the hook returns) and starts a drainer, lexsona spool drain, that
delivers it — to the service named by --server, else to the local memory:
past the correction gate it becomes one inbox suggestion; CORRECT[rule_id]:
and remember: are recorded at once. The prompt is never held, and never
lost: what is not delivered stays on the spool for the next drain, and is
recorded once (its session and hash are the idempotency key).
PreToolUse denies a tool call that matches the enforce check of a must rule
in force for the session's scope, and spools the denied call as a violation
for the rule's receipts.
Other events get no answer. It fails open: on any error it prints one line on
stderr, nothing on stdout, and exits 0, so the agent is never blocked. Every
event is bounded by 2 s as a whole: past it, or on SIGTERM, the hook prints
one line on stderr and exits 0.`,
		// Exit code 2 blocks a Claude Code prompt or tool call: even a wrong
		// invocation of the hook fails open.
		Args:               cobra.ArbitraryArgs,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] != "claude-code" {
				fmt.Fprintf(a.stderr, "lexsona hook: want `lexsona hook claude-code`, got %q (ignored; the agent goes on)\n", args)
				return nil
			}
			errw := a.stderr
			a.stderr = io.Discard
			out, err := runClaudeHookWithin(cmd.Context(), a, spoolingUseCases{a: a, server: server}, hooks.Options{Notes: notes}, HookDeadline)
			if !a.abandoned {
				a.stderr = errw
			}
			if err != nil {
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
		"what the hook tells the agent about corrections waiting for review: session (one line at session start), off, or ask (env LEXSONA_HOOK_NOTES)")
	c.Flags().StringVar(&server, "server", "", "the `URL` of a running lexsona serve (e.g. http://127.0.0.1:8080): the persona comes from it and captured prompts are delivered to it")
	return c
}

// HookDeadline bounds every hook event as a whole: reading the event, the
// scope and the store. Past it the hook fails open.
const HookDeadline = 2 * time.Second

// spoolGrace is how long a hook stopped by a signal or its deadline still
// waits for a prompt it is writing to the spool.
const spoolGrace = time.Second

// runClaudeHookWithin is runClaudeHook bounded by d and by ctx (which the
// process's SIGINT and SIGTERM cancel): when either ends first it returns an
// error saying so at once, marks a abandoned, and leaves the event's work to
// end with the process.
func runClaudeHookWithin(ctx context.Context, a *app, b spoolingUseCases, o hooks.Options, d time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := runClaudeHook(ctx, a, b, o)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		if a.spooling.Load() {
			// A prompt being written to the spool is finished first: it
			// takes milliseconds, and is the prompt's only copy.
			select {
			case r := <-done:
				return r.out, r.err
			case <-time.After(spoolGrace):
			}
		}
		a.abandoned = true
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer within %s", d)
		}
		return nil, errors.New("stopped by a signal")
	}
}

// runClaudeHook reads the event and returns the bytes to print (nil for
// none). A prompt is spooled; afterwards a drainer is started when the
// spool holds anything.
func runClaudeHook(ctx context.Context, a *app, b spoolingUseCases, o hooks.Options) (out []byte, err error) {
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
	defer a.drainIfWaiting()
	if ev.HookEventName == hooks.EventUserPromptSubmit {
		if strings.TrimSpace(ev.Prompt) == "" || hooks.AgentGenerated(ev.Prompt) {
			return nil, nil
		}
		a.spooling.Store(true)
		defer a.spooling.Store(false)
		_, err := a.spoolPrompt(ev, b.server)
		return nil, err
	}
	res, err := hooks.HandleClaudeCode(ctx, ev, b, hookScope, o)
	if err != nil && !errors.Is(err, hooks.ErrNotRecorded) {
		return nil, err
	}
	data, encErr := hooks.EncodeOutput(res)
	if encErr != nil {
		return nil, encErr
	}
	return data, err
}

// drainIfWaiting starts a drainer when the spool holds anything.
func (a *app) drainIfWaiting() {
	if d, err := spoolDepth(a.spoolDir()); err == nil && d > 0 {
		a.startDrainer()
	}
}

func hookErrText(err error) string {
	if engine.ErrorCode(err) == engine.EINTERNAL {
		return err.Error()
	}
	return engine.ErrorMessage(err)
}
