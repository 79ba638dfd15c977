#!/usr/bin/env bash
# browser.sh — install what the real-browser tests of the review page need,
# then run them.
#
#   - Debian's Chromium at /usr/bin/chromium (apt-get update once, then
#     apt-get install -y chromium; skipped when it is already there);
#   - playwright-core, pinned in e2e/browser/package.json and
#     package-lock.json, into e2e/browser/node_modules with
#     `npm ci --ignore-scripts` (playwright-core downloads no browser);
#   - then `go test ./e2e/browser` with LEXSONA_REQUIRE_BROWSER=1, so a
#     missing piece fails instead of skipping.
#
# Usage: bash scripts/browser.sh [install]   ("install" stops after installing)
# Screenshots land in e2e/browser/artifacts/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
dir="$root/e2e/browser"

if [[ ! -x /usr/bin/chromium ]]; then
	command -v apt-get >/dev/null 2>&1 || { echo "browser: /usr/bin/chromium is missing and apt-get is not available: install Chromium" >&2; exit 1; }
	sudo=""
	if [[ "$(id -u)" != 0 ]]; then
		sudo="sudo"
	fi
	echo "browser: installing chromium (apt-get)" >&2
	$sudo apt-get update -q >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends chromium >&2
fi
/usr/bin/chromium --version >&2

command -v node >/dev/null 2>&1 || { echo "browser: node not found: install Node.js >= 20.9 (Debian: apt-get install nodejs npm)" >&2; exit 1; }
if [[ ! -d "$dir/node_modules/playwright-core" || "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]]; then
	echo "browser: installing e2e/browser dependencies (npm ci --ignore-scripts)" >&2
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
fi

if [[ "${1:-}" == install ]]; then
	exit 0
fi
cd "$root"
LEXSONA_REQUIRE_BROWSER=1 exec go test -count=1 -v ./e2e/browser/
