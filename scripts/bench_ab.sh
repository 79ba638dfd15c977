#!/usr/bin/env bash
# bench_ab.sh REV [ROUNDS] — the use-case benchmarks of REV and of the work
# tree side by side, in one run: both test binaries are built first, then
# run alternately ROUNDS times (default 5), so that both see the same
# machine. It prints every run and the median of each benchmark per side.
#
# Benchmarks: memory BenchmarkRecord (the correction throughput of one
# memory through the whole use case: validate, redact, classify with the
# lexical embedder, decide, write to a SQLite file) and BenchmarkClassify
# (classify latency, nothing written); store/sqlite BenchmarkRecord (a
# correction's transaction, serial and from parallel writers); classifier
# BenchmarkClassifyORT (classify latency on the real model; needs `make
# deps`). memory/record_bench_test.go is copied into REV's tree when REV
# predates it, so both sides run the same benchmark code.
set -euo pipefail
rev=${1:?usage: bench_ab.sh REV [ROUNDS]}
rounds=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/old" "$rev" >/dev/null
cp -n "$root/memory/record_bench_test.go" "$work/old/memory/" 2>/dev/null || true
export LEXSONA_ORT_LIB=${LEXSONA_ORT_LIB:-$root/.cache/ort/libonnxruntime.so.1}
export LEXSONA_REAL_MODEL_DIR=${LEXSONA_REAL_MODEL_DIR:-$root/.cache/models/all-MiniLM-L6-v2}
pkgs=(memory store/sqlite classifier)
for side in old new; do
  src=$root; [ "$side" = old ] && src=$work/old
  for p in "${pkgs[@]}"; do
    (cd "$src" && go test -c -o "$work/$side-${p//\//_}.test" "./$p")
  done
done
bench() { # PKG PATTERN BENCHTIME
  for side in old new; do
    (cd "$root/$1" && "$work/$side-${1//\//_}.test" -test.run '^$' -test.bench "$2" -test.benchtime "$3" 2>/dev/null) |
      awk -v s="$side" '/^Benchmark/ {print s, $1, $3}'
  done
}
for ((i = 1; i <= rounds; i++)); do
  bench memory 'BenchmarkRecord$|BenchmarkClassify$' 400x
  bench store/sqlite 'BenchmarkRecord$' 2000x
  bench classifier 'BenchmarkClassifyORT$' 200x
done | tee "$work/runs.txt"
echo
echo "median ns/op (old = $rev, new = work tree):"
for key in $(awk '{print $2 "@" $1}' "$work/runs.txt" | sort -u); do
  name=${key%@*} side=${key#*@}
  vals=$(awk -v n="$name" -v s="$side" '$2 == n && $1 == s {print $3}' "$work/runs.txt" | sort -n)
  count=$(echo "$vals" | wc -l)
  echo "$name $side $(echo "$vals" | sed -n "$(((count + 1) / 2))p")"
done
