#!/usr/bin/env bash
# claude.sh — install the Claude Code CLI that the e2e/claudecli tests drive,
# and print the path of its `claude` executable.
#
# The npm package @anthropic-ai/claude-code at CLAUDE_VERSION below goes into
# .cache/claude with `npm install`. That package is a thin wrapper: its
# postinstall (install.cjs) copies the native executable out of the
# platform package it lists in optionalDependencies
# (@anthropic-ai/claude-code-linux-x64 here, -linux-arm64, -linux-x64-musl,
# ... elsewhere), which npm fetches from the same registry, over the
# placeholder bin/claude.exe. Nothing is downloaded from outside the npm
# registry; the native executable needs no Node.js at run time.
#
# A fast no-op when .cache/claude already holds that version and its
# executable runs. Fails with a message when npm is missing.
#
# Usage: bash scripts/claude.sh   (stdout: the executable's absolute path)
set -euo pipefail

CLAUDE_VERSION=2.1.332

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
dir="$root/.cache/claude"
pkg="$dir/node_modules/@anthropic-ai/claude-code"
bin="$pkg/bin/claude.exe"

# current: the installed package is CLAUDE_VERSION and its executable is the
# native one (the placeholder prints an error and exits 1 on --version).
current() {
	[[ -x "$bin" && -f "$pkg/package.json" ]] || return 1
	grep -q "\"version\": \"$CLAUDE_VERSION\"" "$pkg/package.json" || return 1
	local v
	v="$(DISABLE_AUTOUPDATER=1 timeout 30 "$bin" --version 2>/dev/null)" || return 1
	[[ "$v" == "$CLAUDE_VERSION"* ]]
}

if ! current; then
	command -v npm >/dev/null 2>&1 || { echo "claude: npm not found: install Node.js and npm (Debian: apt-get install nodejs npm)" >&2; exit 1; }
	echo "claude: installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $dir (npm install)" >&2
	mkdir -p "$dir"
	# A package.json of its own keeps npm from walking up to another project.
	printf '{\n  "private": true,\n  "description": "Claude Code CLI for the e2e/claudecli tests (scripts/claude.sh)"\n}\n' >"$dir/package.json"
	(cd "$dir" && npm install --save-exact --include=optional --no-audit --no-fund --loglevel=error \
		"@anthropic-ai/claude-code@$CLAUDE_VERSION") >&2
	if ! current; then
		echo "claude: $bin is not a working Claude Code $CLAUDE_VERSION after npm install." >&2
		echo "claude: its native executable comes from the optional dependency @anthropic-ai/claude-code-<platform> (linux-x64 here);" >&2
		echo "claude: check that npm did not omit optional dependencies (npm config get omit) and that this platform has one." >&2
		exit 1
	fi
fi
echo "$bin"
