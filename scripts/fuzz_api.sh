#!/usr/bin/env bash
# fuzz_api.sh: fuzz the HTTP API from its own OpenAPI document with
# schemathesis, on loopback only, against a throwaway database.
#
#   scripts/fuzz_api.sh            (make fuzz-api; make test runs it too)
#
# Installs schemathesis $SCHEMATHESIS_VERSION into a venv under
# .cache/fuzz-venv (pip; Debian's python3-venv with apt-get when the venv
# module is missing), builds bin/lexsona, starts `lexsona serve` on
# 127.0.0.1 with a temp database and the lexical embedder, runs `schemathesis
# run` with every check as scripts/fuzz_api.toml sets them (FUZZ_CHECKS, a
# comma-separated list, runs only those; FUZZ_PHASES, e.g. "stateful", only
# those phases), at most FUZZ_MAX_EXAMPLES cases per operation (default 25)
# and FUZZ_MAX_TIME seconds (default 75) from seed FUZZ_SEED (default 1:
# which stateful chains a run reaches within its time also depends on the
# machine's speed, so try other seeds to look further), then stops the server
# and prints the counts. Exits non-zero when schemathesis reports a failure:
# a 5xx, an answer the document does not describe, a request the document
# calls invalid that is served, or one it calls valid that is refused.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SCHEMATHESIS_VERSION=4.32.5
VENV=${FUZZ_VENV:-$ROOT/.cache/fuzz-venv}
PYTHON=${FUZZ_PYTHON:-python3}
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-25}
MAX_TIME=${FUZZ_MAX_TIME:-75}
CHECKS=${FUZZ_CHECKS:-}
RUN_ARGS=()
if [ -n "$CHECKS" ]; then RUN_ARGS=(--checks "$CHECKS"); fi
if [ -n "${FUZZ_PHASES:-}" ]; then RUN_ARGS+=(--phases "$FUZZ_PHASES"); fi
SEED=${FUZZ_SEED:-1}
GO=${GO:-go}

if [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
	echo "fuzz-api: installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
	rm -rf "$VENV"
	if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
		command -v apt-get >/dev/null || { echo "fuzz-api: $PYTHON cannot make a venv: install its venv module (Debian: python3-venv)" >&2; exit 1; }
		sudo=""
		if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
		echo "fuzz-api: installing python3-venv (apt-get)" >&2
		$sudo apt-get update -q >&2
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv >&2
		rm -rf "$VENV"
		"$PYTHON" -m venv "$VENV"
	fi
	"$VENV/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
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

# The document says dimensions and model must be the served model's, which
# it cannot name: the fuzzer's copy names the lexical embedder's.
DIMS=$(curl -fsS -H 'Content-Type: application/json' -d '{"input":"dimensions"}' "$URL/v1/embeddings" |
	"$VENV/bin/python" -c 'import json, sys; print(len(json.load(sys.stdin)["data"][0]["embedding"]))')
MODELS=$(curl -fsS -H 'Content-Type: application/json' -d '{"input":"model"}' "$URL/v1/embeddings" |
	"$VENV/bin/python" -c 'import json, sys; m = json.load(sys.stdin)["model"]; print(m, m.split("@")[0], "lexical")')
"$VENV/bin/python" - "$ROOT/server/openapi.json" "$WORK/openapi.json" "$DIMS" "$MODELS" <<'PY'
import json, sys
src, dst, dims, models = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split()
doc = json.load(open(src))
p = doc["components"]["schemas"]["EmbeddingsRequest"]["properties"]["dimensions"]
p.pop("type", None), p.pop("minimum", None), p.pop("maximum", None)
p["enum"] = [0, dims, None]
# The lexical embedder needs a letter or digit in a text, and takes its own
# names as the model.
inp = doc["components"]["schemas"]["EmbeddingsRequest"]["properties"]["input"]["oneOf"]
inp[0]["pattern"] = inp[1]["items"]["pattern"] = "[\\p{L}\\p{Nd}]"
doc["components"]["schemas"]["EmbeddingsRequest"]["properties"]["model"] = {"enum": models + ["", None]}
json.dump(doc, open(dst, "w"), ensure_ascii=False)
PY

echo "fuzz-api: fuzzing $URL (checks ${CHECKS:-all, as scripts/fuzz_api.toml sets them}, ≤ $MAX_EXAMPLES cases per operation, ≤ ${MAX_TIME}s)"
set +e
# Run from the temp folder: schemathesis keeps its state in ./.schemathesis.
(cd "$WORK" && exec "$VENV/bin/schemathesis" --config-file "$ROOT/scripts/fuzz_api.toml" run "$WORK/openapi.json" \
	--url "$URL" \
	"${RUN_ARGS[@]}" \
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
