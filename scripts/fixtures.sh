#!/usr/bin/env bash
# fixtures.sh [--full] [--tiny-only] MODELS_DIR TOKENIZER_DIR — generate the fixture models
#
#   MODELS_DIR/tiny           hidden 32, 2 layers, 2 heads, intermediate 64, vocab 30522,
#                             seed 1, weights on 16 levels: byte-identical to the committed
#                             models/testdata/tiny-model.onnx.gz (the reference testdata in
#                             models/testdata/reference/ is computed from that file)
#   MODELS_DIR/minilm-random  exactly all-MiniLM-L6-v2's architecture, seed 42 (~90 MB;
#                             takes ~1-2 s, so it is built by default too)
#
# Each folder holds model.onnx, onnx/model.onnx (hard link, for Transformers.js),
# the tokenizer files copied from TOKENIZER_DIR, a matching config.json and
# fixture.json. Idempotent: a folder is rebuilt only when its .stamp (generator
# sha256, options, tokenizer sha256) or its model.onnx sha256 no longer match.
# --full is accepted for `make bench-model` (the full model is built by default
# anyway); --tiny-only or LEXSONA_FIXTURES_FULL=0 skips it. FIXTURES_IGNORE_COMMITTED=1
# keeps the generated tiny model even when it differs from the committed one
# (scripts/make_reference.sh uses it to refresh the committed fixture).
# Needs /usr/bin/python3 with onnx and numpy (installs Debian's python3-onnx and
# python3-numpy with apt-get when missing). Override the interpreter with PY=...
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
gen="$here/gen_bert_onnx.py"
committed_tiny="$repo/models/testdata/tiny-model.onnx.gz"
PY="${PY:-/usr/bin/python3}"

full="${LEXSONA_FIXTURES_FULL:-1}"
args=()
for a in "$@"; do
	case "$a" in
	--full) full=1 ;;
	--tiny-only) full=0 ;;
	-*) echo "fixtures.sh: unknown option $a" >&2; exit 2 ;;
	*) args+=("$a") ;;
	esac
done
if [[ ${#args[@]} -ne 2 ]]; then
	echo "usage: $0 [--full] [--tiny-only] MODELS_DIR TOKENIZER_DIR" >&2
	exit 2
fi
models="${args[0]}"
tok="${args[1]}"

log() { echo "fixtures: $*" >&2; }
die() { echo "fixtures: error: $*" >&2; exit 1; }

if [[ ! -d "$tok" ]]; then
	die "$tok not found: the tokenizer files are needed to build fixture models (they live in ../shared/models/all-MiniLM-L6-v2 beside the clone)"
fi
for f in tokenizer.json vocab.txt tokenizer_config.json special_tokens_map.json config.json; do
	[[ -f "$tok/$f" ]] || die "$tok/$f not found: the tokenizer files are needed to build fixture models"
done

ensure_python() {
	if "$PY" -c 'import onnx, numpy' 2>/dev/null; then
		return
	fi
	[[ "$PY" == /usr/bin/python3 ]] || die "$PY cannot import onnx and numpy; install them or unset PY to use /usr/bin/python3"
	local sudo=""
	if [[ "$(id -u)" != 0 ]]; then
		command -v sudo >/dev/null 2>&1 && sudo="sudo -n" ||
			die "/usr/bin/python3 cannot import onnx and numpy; run: apt-get install python3-onnx python3-numpy"
	fi
	command -v apt-get >/dev/null 2>&1 || die "/usr/bin/python3 cannot import onnx and numpy, and apt-get is not available to install python3-onnx python3-numpy"
	log "installing python3-onnx python3-numpy with apt-get"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null ||
		die "apt-get update failed"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-onnx python3-numpy >/dev/null ||
		die "apt-get install python3-onnx python3-numpy failed"
	"$PY" -c 'import onnx, numpy' || die "/usr/bin/python3 still cannot import onnx and numpy"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }
tok_sha="$(cat "$tok"/tokenizer.json "$tok"/vocab.txt "$tok"/tokenizer_config.json "$tok"/special_tokens_map.json "$tok"/config.json | sha256sum | cut -d' ' -f1)"
gen_sha="$(sha "$gen")"

# build NAME OPTIONS... — (re)generate MODELS_DIR/NAME unless its stamp is current.
build() {
	local name="$1"; shift
	local dir="$models/$name"
	local stamp="generator=$gen_sha tokenizer=$tok_sha options=$*"
	local check_committed=0
	if [[ "$name" == tiny && -f "$committed_tiny" && "${FIXTURES_IGNORE_COMMITTED:-0}" != 1 ]]; then
		check_committed=1
		stamp+=" committed=$(sha "$committed_tiny")"
	fi
	if [[ -f "$dir/.stamp" && -f "$dir/model.onnx" && -f "$dir/onnx/model.onnx" ]] &&
		[[ "$(head -n1 "$dir/.stamp")" == "$stamp" ]] &&
		[[ "$(sed -n 2p "$dir/.stamp")" == "$(sha "$dir/model.onnx")" ]]; then
		log "$dir is up to date"
		return
	fi
	ensure_python
	rm -rf "$dir.tmp"
	local t0=$SECONDS
	"$PY" "$gen" "$@" --out "$dir.tmp" --tokenizer-dir "$tok"
	if [[ $check_committed == 1 ]]; then
		local want got
		want="$(gzip -dc "$committed_tiny" | sha256sum | cut -d' ' -f1)"
		got="$(sha "$dir.tmp/model.onnx")"
		if [[ "$got" != "$want" ]]; then
			log "warning: the generated tiny model ($got) differs from the committed $committed_tiny ($want)"
			log "         (a different numpy?); installing the committed one so the reference testdata applies"
			gzip -dc "$committed_tiny" >"$dir.tmp/model.onnx.new"
			mv -f "$dir.tmp/model.onnx.new" "$dir.tmp/model.onnx"
			rm -f "$dir.tmp/onnx/model.onnx"
			ln "$dir.tmp/model.onnx" "$dir.tmp/onnx/model.onnx" 2>/dev/null || cp "$dir.tmp/model.onnx" "$dir.tmp/onnx/model.onnx"
			"$PY" - "$dir.tmp/fixture.json" "$want" "$committed_tiny" <<'EOF'
import json, sys
path, digest, src = sys.argv[1:4]
info = json.load(open(path))
info.update({"model_sha256": digest, "generated_sha256": info.get("model_sha256"), "installed_from": src})
json.dump(info, open(path, "w"), indent=2)
EOF
		fi
	fi
	printf '%s\n%s\n' "$stamp" "$(sha "$dir.tmp/model.onnx")" >"$dir.tmp/.stamp"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	log "built $dir in $((SECONDS - t0))s ($(stat -c %s "$dir/model.onnx") bytes, sha256 $(sed -n 2p "$dir/.stamp"))"
}

mkdir -p "$models"
build tiny --hidden 32 --layers 2 --heads 2 --intermediate 64 --vocab 30522 --seed 1 --quantize-levels 16
if [[ "$full" == 1 ]]; then
	build minilm-random --hidden 384 --layers 6 --heads 12 --intermediate 1536 --vocab 30522 --seed 42
fi
