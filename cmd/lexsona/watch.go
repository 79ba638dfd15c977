package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/agentfile"
	"github.com/lexsona/lexsona/memory"
	"github.com/spf13/cobra"
)

// Bounds of watch --interval.
const (
	DefaultWatchInterval = 2 * time.Second
	MinWatchInterval     = 50 * time.Millisecond
)

func newWatchCmd(a *app) *cobra.Command {
	var format, write string
	var max int
	var interval time.Duration
	var includeDormant bool
	var sf scopeFlags
	c := &cobra.Command{
		Use:   "watch --write FILE [--format agents-md|claude-md|cursor-rule] [--interval 2s] [scope flags]",
		Short: "Keep an agent file (AGENTS.md, CLAUDE.md, a Cursor rule) current as the rules change",
		Long: `Writes the persona of a context into an agent file, as snapshot --write does,
and keeps it current until interrupted (Ctrl-C or SIGTERM, exit 0). Every
--interval it reads the store's change counters and builds the persona again
(in memory: the rules are re-read only when a write, by any process, moved the
counters); the file is rewritten only when the persona text changed, so an
unchanged persona leaves it untouched, modification time included. Without
--format the format follows the file name: *.mdc is a Cursor rule, CLAUDE.md
is claude-md, anything else agents-md. Each write prints one line (one JSON
object with --json); a failed poll prints one line on stderr and the watch
goes on.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if write == "" {
				return usagef("watch needs --write FILE")
			}
			if format == "" {
				format = formatForPath(write)
			}
			if !agentfile.ValidFormat(format) {
				return usagef("--format %q: want agents-md, claude-md or cursor-rule", format)
			}
			if interval < MinWatchInterval {
				return usagef("--interval %s: want at least %s", interval, MinWatchInterval)
			}
			if max < 0 || max > memory.MaxSnapshotRules {
				return usagef("--max %d: want 1 to %d (0 for the configured default)", max, memory.MaxSnapshotRules)
			}
			scope, err := sf.scope()
			if err != nil {
				return err
			}
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			w := &watcher{
				mem: mem, path: write, format: format,
				req: memory.PersonaRequest{Scope: scope, Max: max, IncludeDormant: includeDormant},
			}
			// The first poll's error (a folder, malformed markers) is the
			// command's: nothing would fix it by itself.
			res, wrote, err := w.poll(cmd.Context())
			if err != nil {
				return err
			}
			if err := a.reportWrite(res, wrote); err != nil {
				return err
			}
			t := time.NewTicker(interval)
			defer t.Stop()
			return w.run(cmd.Context(), t.C, func(err error) {
				fmt.Fprintf(a.stderr, "lexsona watch: %s (trying again every %s)\n", hookErrText(err), interval)
			}, a.reportWrite)
		},
	}
	f := c.Flags()
	f.StringVar(&write, "write", "", "the agent file to keep current (AGENTS.md, CLAUDE.md, .cursor/rules/lexsona.mdc)")
	f.StringVar(&format, "format", "", "agents-md, claude-md or cursor-rule (default: from the file name)")
	f.DurationVar(&interval, "interval", DefaultWatchInterval, "how often to check the store for changes")
	f.IntVar(&max, "max", 0, "at most this many rules (default: config max_rules, 20)")
	f.BoolVar(&includeDormant, "include-dormant", false, "also consider stale-weak and dormant rules")
	sf.register(f, false)
	sf.registerDetect(f)
	return c
}

// formatForPath is the agent file format a file name implies.
func formatForPath(path string) string {
	switch base := filepath.Base(path); {
	case strings.HasSuffix(strings.ToLower(base), ".mdc"):
		return agentfile.FormatCursorRule
	case strings.EqualFold(base, "CLAUDE.md"):
		return agentfile.FormatClaudeMD
	}
	return agentfile.FormatAgentsMD
}

// pollResult is what one poll did: the write (Changed false when the file
// already held the persona) and the number of rules in the persona.
type pollResult struct {
	agentfile.WriteResult
	Rules int       `json:"rules"`
	At    time.Time `json:"at"`
}

// watcher keeps one agent file current.
type watcher struct {
	mem          *memory.Service
	req          memory.PersonaRequest
	path, format string
	// last is the prompt the file was last written (or found) with.
	last    string
	written bool
}

// poll builds the persona and writes it when its text differs from the one
// last written. wrote is false when nothing was written. Errors: the
// persona's and agentfile.WriteAgentFile's.
func (w *watcher) poll(ctx context.Context) (res pollResult, wrote bool, err error) {
	snap, err := w.mem.Persona(ctx, w.req)
	if err != nil {
		return res, false, err
	}
	res = pollResult{Rules: len(snap.Rules), At: time.Now().UTC()}
	if w.written && snap.Prompt == w.last {
		return res, false, nil
	}
	res.WriteResult, err = agentfile.WriteAgentFile(w.path, w.format, snap.Prompt)
	if err != nil {
		return res, false, err
	}
	w.last, w.written = snap.Prompt, true
	return res, true, nil
}

// run polls at every tick until ctx ends (then it returns nil). A poll's
// error goes to failed, once for each run of the same error; each poll that
// wrote goes to wrote, whose error ends the watch.
func (w *watcher) run(ctx context.Context, ticks <-chan time.Time, failed func(error), wrote func(pollResult, bool) error) error {
	lastErr := ""
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticks:
		}
		res, changed, err := w.poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			if msg := err.Error(); msg != lastErr {
				failed(err)
				lastErr = msg
			}
			continue
		}
		lastErr = ""
		if err := wrote(res, changed); err != nil {
			return err
		}
	}
}

// reportWrite prints what a poll wrote (nothing when it wrote nothing): a
// line, or a JSON object on one line with --json.
func (a *app) reportWrite(res pollResult, wrote bool) error {
	if !wrote {
		return nil
	}
	if a.asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	var err error
	switch {
	case res.Created:
		_, err = fmt.Fprintf(a.stdout, "created %s (%s)\n", res.Path, rules(res.Rules))
	case res.Changed:
		_, err = fmt.Fprintf(a.stdout, "updated %s (%s)\n", res.Path, rules(res.Rules))
	default:
		_, err = fmt.Fprintf(a.stdout, "%s already holds this persona (%s)\n", res.Path, rules(res.Rules))
	}
	return err
}
