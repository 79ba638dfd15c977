package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/config"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/spf13/cobra"
)

// app holds the configuration, the global flags and the resources a
// command opens lazily.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// cfg is the configuration from the environment, read once at start
	// (run): the flags' defaults, and the settings no flag gives.
	cfg config.Config

	dbPath   string
	asJSON   bool
	embedder string
	modelDir string
	variant  string
	ortLib   string
	registry string
	// verbose logs whole structured records (--verbose); fullLog does too,
	// at info level, for the long-running commands (serve, mcp).
	verbose, fullLog bool

	mem    *memory.Service // the use cases over the store, without embedder
	reader *memory.Service // those over the store opened for reading alone (openReader)
	emb    models.Embedder
	// abandoned is set by a command that returned while its work goes on in
	// another goroutine (the hook past its deadline): close then leaves the
	// store and the embedder to the process's exit, which releases them,
	// instead of waiting for that work.
	abandoned bool
	// spooling is set while the hook writes a prompt to the spool, which a
	// signal then waits for (see runClaudeHookWithin).
	spooling atomic.Bool
}

// usageError marks a wrong invocation (unknown flag or command, wrong number
// of arguments, a flag value that does not parse): exit code 2.
type usageError struct{ err error }

// Error is the wrapped error's message: an *engine.Error's without its code
// (the code of every usage error is "usage").
func (e usageError) Error() string {
	var ee *engine.Error
	if errors.As(e.err, &ee) {
		return ee.Message
	}
	return e.err.Error()
}
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error to the process exit code, in one table: usage errors
// and invalid or oversized input are 2; everything else (not found, conflict,
// unavailable, internal) is 1.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	switch engine.ErrorCode(err) {
	case engine.EINVALID, engine.ETOOLARGE:
		return 2
	}
	return 1
}

// openMemory opens (and migrates) the store once per command and returns
// the use cases over it without an embedder, for commands that read or edit
// rules without classifying (a call that classifies would fail).
func (a *app) openMemory(ctx context.Context) (*memory.Service, error) {
	if a.mem != nil {
		return a.mem, nil
	}
	mem, err := setup.OpenMemory(ctx, a.setupConfig())
	if err != nil {
		return nil, err
	}
	a.mem = mem
	return mem, nil
}

// openReader is openMemory for a command that only reads (a hook answering
// an event): the store opened for reading alone (no migration, cleaning or
// checkpoint), else — a database that needs migrating, or that such an open
// cannot serve — openMemory's.
func (a *app) openReader(ctx context.Context) (*memory.Service, error) {
	if a.reader != nil {
		return a.reader, nil
	}
	cfg := a.setupConfig()
	cfg.ReadOnly = true
	if mem, err := setup.OpenMemory(ctx, cfg); err == nil {
		a.reader = mem
		return mem, nil
	}
	return a.openMemory(ctx)
}

func (a *app) close() {
	if a.abandoned {
		return
	}
	if a.reader != nil {
		a.reader.Close()
		a.reader = nil
	}
	if a.emb != nil {
		a.emb.Close()
		a.emb = nil
	}
	if a.mem != nil {
		a.mem.Close()
		a.mem = nil
	}
}

// printJSON writes v as indented JSON to stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// output prints v as JSON with --json, else calls text to print it for people.
func (a *app) output(v any, text func(w io.Writer)) error {
	if a.asJSON {
		return a.printJSON(v)
	}
	text(a.stdout)
	return nil
}

// reportError prints err on stderr: a JSON object with --json, else a line.
// Internal errors are shown with their detail here (the CLI user owns the
// process), unlike the HTTP API.
func (a *app) reportError(err error) {
	code := engine.ErrorCode(err)
	msg := engine.ErrorMessage(err)
	var u usageError
	if errors.As(err, &u) {
		code, msg = "usage", u.Error()
	} else if code == engine.EINTERNAL {
		msg = err.Error()
	}
	if a.asJSON {
		enc := json.NewEncoder(a.stderr)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
		return
	}
	fmt.Fprintf(a.stderr, "lexsona: %s\n", msg)
	if code == "usage" {
		fmt.Fprintln(a.stderr, "Run 'lexsona --help' for usage.")
	}
}

// parseTime parses an RFC 3339 flag value; empty means now.
func parseTime(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, usagef("--%s %q is not an RFC 3339 time (like 2025-11-22T10:00:00Z)", flag, v)
	}
	return t.UTC(), nil
}

// parseCorrectionTime is parseTime for the time a correction is recorded at:
// a time in the future is a usage error too (engine.ValidateCorrectionTime).
func parseCorrectionTime(flag, v string) (time.Time, error) {
	t, err := parseTime(flag, v)
	if err != nil {
		return t, err
	}
	if err := engine.ValidateCorrectionTime(t, time.Now()); err != nil {
		return time.Time{}, usagef("--%s: %s", flag, engine.ErrorMessage(err))
	}
	return t, nil
}

// noArgs, exactArgs, minArgs wrap cobra's argument checks as usage errors.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s wants %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("%s wants %s", cmd.CommandPath(), what)
		}
		return nil
	}
}
