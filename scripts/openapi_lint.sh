#!/usr/bin/env bash
# openapi_lint.sh: lint server/openapi.json with Redocly CLI's
# recommended-strict rules (every warning of its recommended rules is an
# error), as `make test` and `make lint` do.
#
# Installs the Redocly CLI pinned in scripts/openapi-lint/package.json and
# package-lock.json into .cache/openapi-lint with `npm ci --ignore-scripts`
# (again whenever the lock file changes). Redocly's telemetry and update
# check are turned off. Needs Node.js >= 20.19 and npm.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/scripts/openapi-lint
DIR=$ROOT/.cache/openapi-lint

command -v npm >/dev/null 2>&1 || { echo "openapi-lint: npm not found: install Node.js >= 20.19 (Debian: apt-get install nodejs npm)" >&2; exit 1; }
if [[ ! -x "$DIR/node_modules/.bin/redocly" ]] || ! cmp -s "$SRC/package-lock.json" "$DIR/package-lock.json"; then
	echo "openapi-lint: installing the Redocly CLI into $DIR (npm ci --ignore-scripts)" >&2
	rm -rf "$DIR"
	mkdir -p "$DIR"
	cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
	(cd "$DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
fi
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
exec "$DIR/node_modules/.bin/redocly" lint --extends recommended-strict "$ROOT/server/openapi.json"
