package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// logger writes the CLI's diagnostics (the embedder choice, fallbacks) to
// stderr, so that stdout stays machine-readable. By default each record is
// one short line (see shortHandler); --verbose, LEXSONA_LOG=debug, and the
// long-running commands (serve, mcp) get the whole structured record.
func (a *app) logger() *slog.Logger {
	switch {
	case a.verbose || a.cfg.Debug:
		return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	case a.fullLog:
		return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(&shortHandler{w: a.stderr, mu: &sync.Mutex{}})
}

// shortHandler prints a record of level info or above as one line:
// "lexsona: [warning: ]<message>", its "err" attribute, then its "fix", or
// how to get the model when it carries "fetch_model", then a pointer to
// --verbose when the record had details it left out. Attributes added with
// WithAttrs and groups are dropped.
type shortHandler struct {
	w  io.Writer
	mu *sync.Mutex
}

func (h *shortHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *shortHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("lexsona: ")
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else if r.Level >= slog.LevelWarn {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	var fix string
	fetch, more := false, false
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "err":
			fmt.Fprintf(&b, ": %s", a.Value.String())
		case "fix":
			fix = a.Value.String()
		case "fetch_model":
			fetch = true
		default:
			more = true
		}
		return true
	})
	switch {
	case fix != "":
		fmt.Fprintf(&b, "; %s", fix)
	case fetch && r.Level >= slog.LevelWarn:
		b.WriteString("; get the model with `lexsona model pull`")
	}
	if more {
		b.WriteString(" (--verbose for details)")
	}
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *shortHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *shortHandler) WithGroup(string) slog.Handler      { return h }
