package mcp

import (
	"io"
	"log/slog"
	"strings"
	"time"
)

// Texts whose decision with the lexical embedder and the test bands
// (auto 0.6, confirm 0.35) is known.
const (
	textAuto    = "stop editing files with sed"
	textConfirm = "edit files with the tool"
	ruleSed     = "tool.no-sed-for-file-editing"
)

// testSecrets are secrets a correction may quote (built from parts, so no
// scanner flags this file).
var testSecrets = []string{
	strings.Join([]string{"gh", "p_", "Q7vR2mX9kL4pT8wZ1nB6cY3dF5gH0jS2aE7u"}, ""),
}

// testNow is the clock of test memories.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
