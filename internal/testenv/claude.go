package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RequireClaudeEnv names the variable that turns every "the Claude Code CLI
// is missing" skip into a failure: CI sets it to 1.
const RequireClaudeEnv = "LEXSONA_REQUIRE_CLAUDE"

// ClaudeBinEnv names the variable that points the tests at another Claude
// Code executable than the one `make claude-deps` installs.
const ClaudeBinEnv = "LEXSONA_CLAUDE_BIN"

// claudeCachePath is where scripts/claude.sh (make claude-deps) installs the
// Claude Code CLI's executable, relative to the repository root.
var claudeCachePath = filepath.Join(".cache", "claude", "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")

// placeholderMax is a size no native Claude Code executable is under (they
// are hundreds of megabytes); the npm package's bin/claude.exe is a script
// of a few hundred bytes until its postinstall replaces it.
const placeholderMax = 1 << 20

// ClaudeBin returns the Claude Code CLI the e2e/claudecli tests drive:
// $LEXSONA_CLAUDE_BIN, else <repo>/.cache/claude/node_modules/@anthropic-ai/
// claude-code/bin/claude.exe (what `make claude-deps` installs). A path that
// is not an executable file skips the test naming it and `make
// claude-deps`, or fails it under LEXSONA_REQUIRE_CLAUDE=1; so does the
// npm package's placeholder left where its postinstall did not run.
func ClaudeBin(tb testing.TB) string {
	tb.Helper()
	bin := claudeBinFromEnv()
	if bin == "" {
		bin = filepath.Join(RepoRoot(tb), claudeCachePath)
	}
	st, err := os.Stat(bin)
	switch {
	case err != nil:
		Missing(tb, RequireClaudeEnv, "the Claude Code CLI is not at %s (%v): run `make claude-deps` or set %s", bin, err, ClaudeBinEnv)
	case st.IsDir() || st.Mode().Perm()&0o111 == 0:
		Missing(tb, RequireClaudeEnv, "the Claude Code CLI at %s is not an executable file: run `make claude-deps` or set %s", bin, ClaudeBinEnv)
	case st.Size() < placeholderMax:
		Missing(tb, RequireClaudeEnv, "%s is the npm package's placeholder (%d bytes), not the native executable its postinstall copies from @anthropic-ai/claude-code-<platform>: run `make claude-deps` or set %s", bin, st.Size(), ClaudeBinEnv)
	}
	return bin
}
