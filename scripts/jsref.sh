#!/usr/bin/env bash
# jsref.sh tokens|embed|bench|duel ARGS... — run a Transformers.js reference script
#
# Installs scripts/jsref's dependencies first when node_modules is missing or
# older than package-lock.json: `npm ci --ignore-scripts` (install scripts never
# run; onnxruntime-node's CPU binding ships in its tarball), then checks that the
# onnxruntime-node binding loads, then runs `node scripts/jsref/NAME.mjs ARGS...`.
# Examples:
#   bash scripts/jsref.sh bench .cache/models/all-MiniLM-L6-v2 models/testdata/reference/bench-texts.json
#   bash scripts/jsref.sh tokens ../shared/models/all-MiniLM-L6-v2 models/testdata/reference/texts.json
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jsref="$here/jsref"
name="${1:-}"
if [[ -z "$name" || ! -f "$jsref/$name.mjs" || "$name" == lib ]]; then
	echo "usage: $0 tokens|embed|bench|duel ARGS..." >&2
	exit 2
fi
shift

command -v node >/dev/null 2>&1 || { echo "jsref: node not found: install Node.js >= 20.9 (Debian: apt-get install nodejs npm)" >&2; exit 1; }
if [[ ! -d "$jsref/node_modules/@huggingface/transformers" || "$jsref/package-lock.json" -nt "$jsref/node_modules/.package-lock.json" ]]; then
	echo "jsref: installing scripts/jsref dependencies (npm ci --ignore-scripts)" >&2
	(cd "$jsref" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
	(cd "$jsref" && node -e "require('onnxruntime-node')") ||
		{ echo "jsref: the onnxruntime-node native binding does not load" >&2; exit 1; }
fi
exec node "$jsref/$name.mjs" "$@"
