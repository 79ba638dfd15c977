package main

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestEmbedderFallbackLogIsShort: with no model, an embedding command says
// on one short stderr line which embedder runs and how to get the model;
// --verbose (or LEXSONA_LOG=debug) gives the whole structured record.
func TestEmbedderFallbackLogIsShort(t *testing.T) {
	c := newCLI(t)
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_HOME", cache)
	t.Setenv("LEXSONA_LOG", "")
	noModel := filepath.Join(t.TempDir(), "none")
	args := []string{"classify", "--embedder", "auto", "--model-dir", noModel, "stop using sed"}
	code, _, errs := c.run(args...)
	if code != 0 {
		t.Fatalf("classify: exit %d, stderr %s", code, errs)
	}
	lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
	if len(lines) != 1 || len(lines[0]) > 160 || !strings.Contains(lines[0], "lexical") || !strings.Contains(lines[0], "lexsona model pull") {
		t.Errorf("default stderr (%d lines, first %d chars) is not one short line naming the embedder and how to get the model:\n%s", len(lines), len(lines[0]), errs)
	}
	for _, verbose := range []struct {
		name string
		env  string
		flag []string
	}{{"--verbose", "", []string{"--verbose"}}, {"LEXSONA_LOG=debug", "debug", nil}} {
		t.Setenv("LEXSONA_LOG", verbose.env)
		code, _, errs := c.run(append(verbose.flag, args...)...)
		if code != 0 || !strings.Contains(errs, "why=") || !strings.Contains(errs, noModel) || !strings.Contains(errs, "level=WARN") {
			t.Errorf("%s: exit %d, stderr lacks the full record:\n%s", verbose.name, code, errs)
		}
	}
}

// TestShortHandler: one line per record: the message, its error, its fix or
// how to get the model, and a pointer to --verbose when details were left
// out; debug records are dropped.
func TestShortHandler(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		want string
	}{
		{"info", func(l *slog.Logger) { l.Info("embedder: ort") }, "lexsona: embedder: ort\n"},
		{"details", func(l *slog.Logger) { l.Info("embedder: ort", "model", "/m") }, "lexsona: embedder: ort (--verbose for details)\n"},
		{"fix", func(l *slog.Logger) { l.Warn("embedder: go", "fix", "run `make ort`", "fetch_model", "x") },
			"lexsona: warning: embedder: go; run `make ort`\n"},
		{"fetch", func(l *slog.Logger) { l.Warn("embedder: lexical", "fetch_model", "x", "why", "y") },
			"lexsona: warning: embedder: lexical; get the model with `lexsona model pull` (--verbose for details)\n"},
		{"err", func(l *slog.Logger) { l.Warn("store: checkpoint failed", "err", "disk full") },
			"lexsona: warning: store: checkpoint failed: disk full\n"},
		{"debug", func(l *slog.Logger) { l.Debug("noise") }, ""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		tt.log(slog.New(&shortHandler{w: &b, mu: &sync.Mutex{}}))
		if b.String() != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, b.String(), tt.want)
		}
	}
}
