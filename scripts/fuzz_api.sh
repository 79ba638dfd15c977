#!/usr/bin/env bash
# fuzz_api.sh: fuzz the HTTP API from its own OpenAPI document with
# schemathesis, on loopback only, against a throwaway database.
#
#   scripts/fuzz_api.sh            (make fuzz-api)
#
# Installs schemathesis into a venv under .cache/fuzz-venv (pip), builds
# bin/lexsona, starts `lexsona serve` on 127.0.0.1 with a temp database and
# the lexical embedder, runs `schemathesis run` with the checks
# not_a_server_error and response_schema_conformance (FUZZ_CHECKS), at most
# FUZZ_MAX_EXAMPLES cases per operation (default 40) and FUZZ_MAX_TIME seconds
# (default 200), then stops the server and prints the counts. Exits non-zero
# when schemathesis reports a failure.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
VENV=${FUZZ_VENV:-$ROOT/.cache/fuzz-venv}
PYTHON=${FUZZ_PYTHON:-python3}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-40}
MAX_TIME=${FUZZ_MAX_TIME:-200}
CHECKS=${FUZZ_CHECKS:-not_a_server_error,response_schema_conformance}
SEED=${FUZZ_SEED:-1}
GO=${GO:-go}

if [ ! -x "$VENV/bin/schemathesis" ]; then
	echo "fuzz-api: installing schemathesis into $VENV"
	"$PYTHON" -m venv "$VENV"
	"$VENV/bin/pip" install --quiet schemathesis
fi
echo "fuzz-api: $("$VENV/bin/schemathesis" --version)"

"$GO" build -o bin/lexsona ./cmd/lexsona

WORK=$(mktemp -d)
SERVER_PID=
cleanup() {
	if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# A free loopback port, chosen by the kernel.
PORT=${FUZZ_PORT:-$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
URL="http://127.0.0.1:$PORT"

LEXSONA_API_KEYS= LEXSONA_API_KEYS_FILE= ./bin/lexsona serve --addr "127.0.0.1:$PORT" \
	--db "$WORK/data/lexsona.db" --embedder lexical >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!

for _ in $(seq 1 200); do
	if curl -fsS "$URL/readyz" >/dev/null 2>&1; then break; fi
	if ! kill -0 "$SERVER_PID" 2>/dev/null; then
		echo "fuzz-api: the server exited at start:" >&2
		cat "$WORK/serve.log" >&2
		exit 1
	fi
	sleep 0.1
done
curl -fsS "$URL/readyz" >/dev/null

echo "fuzz-api: fuzzing $URL (checks $CHECKS, ≤ $MAX_EXAMPLES cases per operation, ≤ ${MAX_TIME}s)"
set +e
# Run from the temp folder: schemathesis keeps its state in ./.schemathesis.
(cd "$WORK" && exec "$VENV/bin/schemathesis" run "$ROOT/server/openapi.json" \
	--url "$URL" \
	--checks "$CHECKS" \
	--max-examples "$MAX_EXAMPLES" \
	--max-time "$MAX_TIME" \
	--seed "$SEED" \
	--workers 1 \
	--request-timeout 30 \
	--suppress-health-check all \
	--generation-database none \
	--no-color) 2>&1 | tee "$WORK/schemathesis.log"
STATUS=${PIPESTATUS[0]}
set -e

if grep -q "panic" "$WORK/serve.log"; then
	echo "fuzz-api: the server logged a panic:" >&2
	grep -n -A5 "panic" "$WORK/serve.log" >&2 | head -40
	STATUS=1
fi
echo "fuzz-api: counts (schemathesis summary):"
grep -E "^ *(Selected|Tested):|^ *[0-9]+ generated|^ *❌ .*: [0-9]+$" "$WORK/schemathesis.log" | sed 's/^ */  /' || true
exit $STATUS
