#!/usr/bin/env bash
# bench_report.sh [OUT.md] — run LexSona's benchmarks with bounded times and
# write the report (default BENCHMARKS.md at the repository root).
#
# It records the machine (CPU, cores, memory, kernel, Go, date, `uptime`
# before and after), then runs, each with a bounded -benchtime:
#   models/auto/ BenchmarkEmbed (ort fused and as exported, go, lexical; batch
#                1 and 32; two text sets: typical corrections and edge cases)
#                and Transformers.js on the same texts (scripts/jsref.sh
#                bench); BenchmarkVersusTransformersJS (the three stacks
#                alternated pass by pass: the ratios); BenchmarkORTBare,
#                BenchmarkORTOverhead, BenchmarkTokenize, BenchmarkORTWeightStreaming;
#                BenchmarkORTProfile (ONNX Runtime's profiler: µs per operator
#                type, float32 and int8 graphs)
#   classifier/  BenchmarkTopK (30, 1,000, 100,000 vectors), BenchmarkClassify{ORT,Lexical}
#   store/       BenchmarkSnapshot (100 and 10,000 rules), BenchmarkRecord, BenchmarkRecordDurability
#   engine/      BenchmarkBuildSnapshot (100 and 10,000 rules)
#   store/postgres/ BenchmarkRecord, BenchmarkPersona, BenchmarkVisibility{,Classifier},
#                BenchmarkSyncDefinitions: SQLite and PostgreSQL (scripts/pg.sh's
#                throwaway cluster) side by side
#   server/      BenchmarkHTTPClassifyLoad (64 clients, batching on/off), on
#                the float32 graph and again on the int8 one
#                (LEXSONA_MODEL_VARIANT=int8, into go-server-int8.txt)
# and renders the tables with `go run ./scripts/benchreport`. It needs what
# `make deps` provides (ONNX Runtime, the real all-MiniLM-L6-v2) and
# Node.js for the Transformers.js side; a missing piece is reported in the
# table as a dash, with the reason in the log.
#
# BENCH_TIME (default 3s) bounds the model benchmarks, BENCH_TIME_SHORT
# (default 1s) the others, BENCH_JS_SECONDS (default 5) each Transformers.js
# setting, BENCH_HTTP_REQUESTS (default 1000) each HTTP load configuration,
# BENCH_ROUNDS (default 15) the rounds of the Go/Transformers.js comparison,
# BENCH_PROFILE_PASSES (default 20) the profiled passes per batch size.
# The raw outputs are kept in .cache/bench-report/ for inspection.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-$root/BENCHMARKS.md}"
raw="$root/.cache/bench-report"
model=".cache/models/all-MiniLM-L6-v2"
# BenchmarkEmbed's text sets (models/auto/bench_test.go benchTextSets): name=file.
sets=(corrections=models/testdata/reference/bench-texts.json edge-cases=models/testdata/reference/texts.json)
long="${BENCH_TIME:-3s}"
short="${BENCH_TIME_SHORT:-1s}"
js_seconds="${BENCH_JS_SECONDS:-5}"
http_requests="${BENCH_HTTP_REQUESTS:-1000}"
rounds="${BENCH_ROUNDS:-15}"
profile_passes="${BENCH_PROFILE_PASSES:-20}"
export LEXSONA_ORT_LIB="${LEXSONA_ORT_LIB:-$root/.cache/ort/libonnxruntime.so.1}"
# The float32 graph unless a run names its variant (gobench's VAR=VALUE).
unset LEXSONA_MODEL_VARIANT

[[ -f "$model/model.onnx" ]] || echo "bench_report: no $model/model.onnx: run \`make real-model\` (model benchmarks will be skipped)" >&2

rm -rf "$raw"
mkdir -p "$raw"
: >"$raw/commands.txt"

# gobench NAME PKG PATTERN BENCHTIME [VAR=VALUE...]: one `go test -bench` run
# into go-NAME.txt, with the environment variables given. benchreport reads a
# go-*-int8.txt as the int8 graph's run (LEXSONA_MODEL_VARIANT=int8).
gobench() {
	local name=$1 pkg=$2 pattern=$3 time=$4
	shift 4
	local cmd="go test -run '^\$' -bench '$pattern' -benchtime $time -benchmem $pkg"
	if (($#)); then
		cmd="$* $cmd"
	fi
	echo "$cmd" >>"$raw/commands.txt"
	echo "bench_report: $cmd" >&2
	if ! env "$@" go test -run '^$' -bench "$pattern" -benchtime "$time" -benchmem "$pkg" >"$raw/go-$name.txt" 2>&1; then
		echo "bench_report: $pkg failed; its output:" >&2
		cat "$raw/go-$name.txt" >&2
		return 1
	fi
	grep -E '^(Benchmark|--- SKIP|    .*skip)' "$raw/go-$name.txt" >&2 || true
}

# jsbench OUT TEXTS: Transformers.js on the same model, into OUT (JSON).
jsbench() {
	local outfile=$1 file=$2
	echo "bash scripts/jsref.sh bench --seconds $js_seconds $model $file" >>"$raw/commands.txt"
	echo "bench_report: Transformers.js on $file" >&2
	if ! bash scripts/jsref.sh bench --seconds "$js_seconds" "$model" "$file" >"$raw/$outfile" 2>"$raw/$outfile.log"; then
		echo "bench_report: Transformers.js failed (left out of the report):" >&2
		cat "$raw/$outfile.log" >&2
		rm -f "$raw/$outfile"
	fi
}

uptime >"$raw/uptime-start.txt"
head -1 /proc/stat >"$raw/cpu-start.txt"
echo "bench_report: start: $(cat "$raw/uptime-start.txt")" >&2

# Absolute throughput: every Go backend, then Transformers.js on the same texts.
gobench embed ./models/auto/ '^BenchmarkEmbed$' "$long"
for set in "${sets[@]}"; do
	jsbench "js-${set%%=*}.json" "${set#*=}"
done
# The comparisons: fused ort, exported ort and Transformers.js alternated pass
# by pass on the same batches, $rounds rounds per text set and batch size.
gobench versus ./models/ort/ '^BenchmarkVersusTransformersJS$' "${rounds}x"
gobench ort ./models/ort/ '^(BenchmarkORTBare|BenchmarkORTOverhead|BenchmarkORTWeightStreaming)$' "$long"
gobench tokenize ./models/ '^BenchmarkTokenize$' "$long"
# Where the time goes, operator by operator, float32 against int8.
gobench profile ./models/ort/ '^BenchmarkORTProfile$' "${profile_passes}x"

gobench classifier ./classifier/ '^(BenchmarkTopK|BenchmarkClassifyORT|BenchmarkClassifyLexical)$' "$short"
gobench store ./store/sqlite/ '^(BenchmarkSnapshot|BenchmarkRecord|BenchmarkRecordDurability)$' "$short"
gobench engine ./engine/ '^BenchmarkBuildSnapshot$' "$short"
# SQLite and PostgreSQL side by side, on the throwaway cluster of scripts/pg.sh
# (installed and started when missing; without it the rows are dashes).
if pg_url="$(bash scripts/pg.sh)"; then
	echo 'export LEXSONA_TEST_PG=$(bash scripts/pg.sh)' >>"$raw/commands.txt"
	LEXSONA_TEST_PG="$pg_url" gobench store-pg ./store/postgres/ '^(BenchmarkRecord|BenchmarkPersona|BenchmarkVisibility|BenchmarkVisibilityClassifier|BenchmarkSyncDefinitions)$' "$short"
else
	echo "bench_report: no PostgreSQL (scripts/pg.sh failed): its rows are left out" >&2
fi
gobench server ./server/ '^BenchmarkHTTPClassifyLoad$' "${http_requests}x"
gobench hook ./server/ '^BenchmarkClaudeCodeHookRoute$' 200x
gobench server-int8 ./server/ '^BenchmarkHTTPClassifyLoad$' "${http_requests}x" LEXSONA_MODEL_VARIANT=int8

uptime >"$raw/uptime-end.txt"
head -1 /proc/stat >"$raw/cpu-end.txt"
times >"$raw/cpu-children.txt" # its second line: user and system time of every benchmark process (not in a pipe: a subshell has no children)
echo "bench_report: end: $(cat "$raw/uptime-end.txt")" >&2
go run ./scripts/benchreport -raw "$raw" -out "$out"
echo "bench_report: wrote $out (raw outputs in $raw)" >&2
