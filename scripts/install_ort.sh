#!/usr/bin/env bash
# install_ort.sh DEST_DIR — install ONNX Runtime's shared library as DEST_DIR/libonnxruntime.so.1
#
# Sources, in order:
#   1. the official release archive
#      https://github.com/microsoft/onnxruntime/releases/download/v$VER/onnxruntime-linux-x64-$VER.tgz
#      (short connect timeout: where GitHub is unreachable this fails within seconds);
#   2. the onnxruntime-node npm tarball (`npm pack onnxruntime-node@$VER`, which
#      never runs the package's install scripts), file
#      package/bin/napi-v6/linux/x64/libonnxruntime.so.1.
# Idempotent: does nothing when DEST_DIR/VERSION already names $VER and the
# library's sha256 still matches DEST_DIR/SHA256. Verifies the result is an
# x86-64 ELF shared object and, where a python3 is available, asks the library
# for its version (OrtGetApiBase()->GetVersionString()).
#
# Env: ORT_VERSION (default 1.30.0; github.com/yalue/onnxruntime_go v1.27 needs >= 1.24),
#      ORT_URL (override the release archive URL), ORT_SKIP_RELEASE=1 (go straight to npm).
set -euo pipefail

VER="${ORT_VERSION:-1.30.0}"
DEST="${1:-}"
if [[ -z "$DEST" ]]; then
	echo "usage: $0 DEST_DIR" >&2
	exit 2
fi
LIB="$DEST/libonnxruntime.so.1"
URL="${ORT_URL:-https://github.com/microsoft/onnxruntime/releases/download/v$VER/onnxruntime-linux-x64-$VER.tgz}"

log() { echo "install_ort: $*" >&2; }
die() { log "error: $*"; exit 1; }

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) die "only linux/x86_64 is supported by this script (got $(uname -s)/$(uname -m)); set LEXSONA_ORT_LIB to an ONNX Runtime >= 1.24 library instead" ;;
esac

sha256() { sha256sum "$1" | cut -d' ' -f1; }

# check_elf FILE: an ELF64 little-endian x86-64 shared object (e_type ET_DYN, e_machine EM_X86_64).
check_elf() {
	local f="$1" hdr
	hdr="$(od -An -tx1 -N20 "$f" | tr -d ' \n')"
	[[ "${hdr:0:8}" == "7f454c46" ]] || { log "$f is not an ELF file"; return 1; }
	[[ "${hdr:8:4}" == "0201" ]] || { log "$f is not a 64-bit little-endian ELF file"; return 1; }
	[[ "${hdr:32:4}" == "0300" ]] || { log "$f is not an ELF shared object (e_type ${hdr:32:4})"; return 1; }
	[[ "${hdr:36:4}" == "3e00" ]] || { log "$f is not an x86-64 ELF file (e_machine ${hdr:36:4})"; return 1; }
}

# lib_version FILE: print the version string the library reports, or nothing if no python3 can load it.
lib_version() {
	local py
	for py in /usr/bin/python3 python3; do
		command -v "$py" >/dev/null 2>&1 || continue
		"$py" - "$1" <<'EOF' 2>/dev/null && return 0
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.OrtGetApiBase.restype = ctypes.c_void_p
base = lib.OrtGetApiBase()
# struct OrtApiBase { const OrtApi* (*GetApi)(uint32_t); const char* (*GetVersionString)(void); }
fn = ctypes.cast(base + ctypes.sizeof(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p))[0]
print(ctypes.CFUNCTYPE(ctypes.c_char_p)(fn)().decode())
EOF
	done
	return 1
}

if [[ -f "$LIB" && -f "$DEST/VERSION" && -f "$DEST/SHA256" ]] &&
	[[ "$(cat "$DEST/VERSION")" == "$VER" ]] && [[ "$(cat "$DEST/SHA256")" == "$(sha256 "$LIB")" ]]; then
	log "ONNX Runtime $VER already installed at $LIB (up to date)"
	exit 0
fi

mkdir -p "$DEST"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/install_ort.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
SRC=""
FROM=""

if [[ "${ORT_SKIP_RELEASE:-0}" != "1" ]] && command -v curl >/dev/null 2>&1; then
	log "trying the official release archive $URL"
	if curl -fsSL --connect-timeout 5 --max-time 600 -o "$TMP/ort.tgz" "$URL" 2>"$TMP/curl.err"; then
		member="$(tar -tzf "$TMP/ort.tgz" | grep -E '/lib/libonnxruntime\.so\.[0-9]+\.[0-9]+\.[0-9]+$' | head -n1 || true)"
		if [[ -n "$member" ]]; then
			tar -xzf "$TMP/ort.tgz" -C "$TMP" "$member"
			SRC="$TMP/$member"
			FROM="$URL ($member)"
		else
			log "the release archive holds no lib/libonnxruntime.so.$VER; falling back to npm"
		fi
	else
		log "release archive unreachable ($(tr '\n' ' ' <"$TMP/curl.err" | sed 's/ *$//')); falling back to npm"
	fi
fi

if [[ -z "$SRC" ]]; then
	command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js/npm, or put libonnxruntime.so.1 (ONNX Runtime >= 1.24) in $DEST yourself"
	log "fetching onnxruntime-node@$VER with npm pack (no install scripts are run)"
	(cd "$TMP" && npm pack --silent --ignore-scripts "onnxruntime-node@$VER" >"$TMP/pack.out" 2>"$TMP/pack.err") ||
		die "npm pack onnxruntime-node@$VER failed: $(tail -n 5 "$TMP/pack.err")"
	tarball="$TMP/$(tail -n1 "$TMP/pack.out")"
	[[ -f "$tarball" ]] || tarball="$(ls "$TMP"/onnxruntime-node-*.tgz 2>/dev/null | head -n1)"
	[[ -f "$tarball" ]] || die "npm pack did not produce a tarball"
	member="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
	tar -xzf "$tarball" -C "$TMP" "$member" || die "$member not found in $(basename "$tarball")"
	SRC="$TMP/$member"
	FROM="npm onnxruntime-node@$VER ($(basename "$tarball"):$member)"
fi

check_elf "$SRC" || die "the downloaded library is not usable"
install -m 0755 "$SRC" "$LIB.tmp"
mv -f "$LIB.tmp" "$LIB"

got="$(lib_version "$LIB" || true)"
if [[ -n "$got" && "$got" != "$VER" ]]; then
	die "$LIB reports version $got, expected $VER"
fi
echo "$VER" >"$DEST/VERSION"
sha256 "$LIB" >"$DEST/SHA256"
log "installed ONNX Runtime ${got:-$VER} at $LIB from $FROM"
log "  sha256 $(cat "$DEST/SHA256"), $(stat -c %s "$LIB") bytes${got:+, reports version $got}"
