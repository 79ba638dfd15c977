#!/usr/bin/env bash
# make_reference.sh [--full] [TOKENIZER_DIR] — regenerate the committed fixture and reference testdata
#
#   models/testdata/tiny-model.onnx.gz         the tiny fixture (gen_bert_onnx.py, options of
#                                              fixtures.sh), gzip -9 without name/mtime; rewritten
#                                              only when its content changes
#   models/testdata/tiny-model.onnx.sha256     sha256 of the decompressed model.onnx
#   models/testdata/reference/tokens.json      input_ids of texts.json from Transformers.js
#                                              (tokens.mjs, the real tokenizer from TOKENIZER_DIR)
#   models/testdata/reference/embeddings-tiny.json      tiny fixture embeddings, Transformers.js
#                                                       on onnxruntime-node (embed.mjs)
#   models/testdata/reference/embeddings-tiny-f64.json  the same from the float64 numpy
#                                                       forward pass (ref_forward.py), checked
#                                                       against the previous file within 1e-5
# texts.json is the hand-written input and is not touched.
# --full also checks Transformers.js against ref_forward.py on the full-size
# generated model (not committed: ~30 s more).
# TOKENIZER_DIR defaults to ../shared/models/all-MiniLM-L6-v2 beside the repo.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
PY="${PY:-/usr/bin/python3}"
full=0
args=()
for a in "$@"; do
	case "$a" in
	--full) full=1 ;;
	-*) echo "make_reference: unknown option $a" >&2; exit 2 ;;
	*) args+=("$a") ;;
	esac
done
tok="${args[0]:-$repo/../shared/models/all-MiniLM-L6-v2}"
testdata="$repo/models/testdata"
ref="$testdata/reference"
models="$repo/.cache/models"
work="$repo/.cache/reference"
log() { echo "make_reference: $*" >&2; }

[[ -d "$tok" ]] || { log "error: $tok not found: the tokenizer files are needed to build fixture models"; exit 1; }
[[ -f "$ref/texts.json" ]] || { log "error: $ref/texts.json not found"; exit 1; }

# 1. Transformers.js (scripts/jsref.sh installs it from the lock file, without install scripts).
jsref() { bash "$here/jsref.sh" "$@"; }

# 2. The committed tiny fixture, from the generator.
mkdir -p "$work"
FIXTURES_IGNORE_COMMITTED=1 bash "$here/fixtures.sh" --tiny-only "$work/gen" "$tok"
new_sha="$(sha256sum "$work/gen/tiny/model.onnx" | cut -d' ' -f1)"
old_sha=""
[[ -f "$testdata/tiny-model.onnx.gz" ]] && old_sha="$(gzip -dc "$testdata/tiny-model.onnx.gz" | sha256sum | cut -d' ' -f1)"
if [[ "$new_sha" != "$old_sha" ]]; then
	"$PY" - "$work/gen/tiny/model.onnx" "$testdata/tiny-model.onnx.gz" <<'EOF'
import gzip, shutil, sys
with open(sys.argv[1], "rb") as src, open(sys.argv[2], "wb") as raw:
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as dst:
        shutil.copyfileobj(src, dst)
EOF
	log "wrote $testdata/tiny-model.onnx.gz ($(stat -c %s "$testdata/tiny-model.onnx.gz") bytes)"
else
	log "$testdata/tiny-model.onnx.gz is up to date"
fi
echo "$new_sha  model.onnx" >"$testdata/tiny-model.onnx.sha256"

# 3. The fixture folders the tests use (tiny now equals the committed file).
if [[ $full == 1 ]]; then
	bash "$here/fixtures.sh" --full "$models" "$tok"
else
	bash "$here/fixtures.sh" --tiny-only "$models" "$tok"
fi

# 4. Token ids and embeddings from Transformers.js, then the float64 reference.
log "tokens.json (Transformers.js tokenizer)"
jsref tokens "$tok" "$ref/texts.json" >"$ref/tokens.json.tmp"
mv "$ref/tokens.json.tmp" "$ref/tokens.json"
log "embeddings-tiny.json (Transformers.js on onnxruntime-node)"
jsref embed --check-pipeline "$models/tiny" "$ref/texts.json" >"$ref/embeddings-tiny.json.tmp"
mv "$ref/embeddings-tiny.json.tmp" "$ref/embeddings-tiny.json"
log "embeddings-tiny-f64.json (ref_forward.py, float64 numpy)"
"$PY" "$here/ref_forward.py" "$testdata/tiny-model.onnx.gz" "$ref/tokens.json" \
	--out "$ref/embeddings-tiny-f64.json" --check "$ref/embeddings-tiny.json" --tol 1e-5

if [[ $full == 1 ]]; then
	log "full-size model: Transformers.js vs ref_forward.py"
	jsref embed --batch 16 "$models/minilm-random" "$ref/texts.json" >"$work/embeddings-minilm-random.json"
	"$PY" "$here/ref_forward.py" "$models/minilm-random" "$ref/tokens.json" --check "$work/embeddings-minilm-random.json" --tol 1e-5
fi
log "done"
