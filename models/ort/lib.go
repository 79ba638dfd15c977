// Package ort is the "ort" backend: all-MiniLM-L6-v2 run by ONNX Runtime
// through onnxruntime_go. It finds and checks the native library, runs the
// model's graph or its fused rewrite (bertfuse), and picks the int8 graph
// where it is known to embed like float32.
package ort

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// The first two members of OrtApiBase, stable across every ONNX Runtime release.
typedef struct { const void *(*GetApi)(unsigned int); const char *(*GetVersionString)(void); } lexsonaOrtApiBase;
typedef const lexsonaOrtApiBase *(*lexsonaGetApiBase)(void);

// lexsona_ort_version loads the library at path and copies its version into
// ver. It returns 0 on success, 1 when dlopen fails, 2 when the library has no
// OrtGetApiBase. On success the library stays loaded (ONNX Runtime will be
// initialised from it next); on failure it is closed. The dlerror text goes to err.
static int lexsona_ort_version(const char *path, char *ver, int nver, char *err, int nerr) {
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		strncpy(err, e ? e : "dlopen failed", nerr - 1);
		return 1;
	}
	lexsonaGetApiBase fn = (lexsonaGetApiBase) dlsym(h, "OrtGetApiBase");
	if (!fn) {
		const char *e = dlerror();
		strncpy(err, e ? e : "no OrtGetApiBase", nerr - 1);
		dlclose(h);
		return 2;
	}
	const lexsonaOrtApiBase *b = fn();
	const char *v = (b && b->GetVersionString) ? b->GetVersionString() : "";
	strncpy(ver, v ? v : "", nver - 1);
	return 0;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// MinVersion is the oldest ONNX Runtime that onnxruntime_go v1.27 (C API
// version 24) can use.
const MinVersion = "1.24.0"

// libName is the file `make ort` installs under .cache/ort.
const libName = "libonnxruntime.so.1"

// libHint is what every "the library is missing or unusable" message says.
const libHint = "run `make ort` or set LEXSONA_ORT_LIB (--ort-lib) to a libonnxruntime.so.1 of version >= " + MinVersion

// FindLib picks the ONNX Runtime library: explicit (the option), else
// $LEXSONA_ORT_LIB, else .cache/ort/libonnxruntime.so.1 in the current folder
// or one of its parents up to the repository root, or next to the executable
// (or its parent), else the bare name libonnxruntime.so.1 for the system
// loader. An explicit or env path that does not exist is an EUNAVAILABLE
// error naming it; the function never falls back past a path it was given.
func FindLib(explicit string) (string, error) {
	for _, p := range []string{explicit, os.Getenv("LEXSONA_ORT_LIB")} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return "", engine.Errorf(engine.EUNAVAILABLE, "no ONNX Runtime library at %s (%v): %s", p, models.StatCause(err), libHint)
		}
		return p, nil
	}
	for _, d := range libSearchDirs() {
		p := filepath.Join(d, ".cache", "ort", libName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return libName, nil
}

// libSearchDirs lists the working folder and its parents up to the one holding
// go.mod, then the executable's folder and its parent.
func libSearchDirs() []string {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil || filepath.Dir(d) == d {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe), filepath.Dir(filepath.Dir(exe)))
	}
	return dirs
}

// ProbeLib loads the library at path (a bare name goes through the system
// loader) and returns its version. A library that cannot be loaded, is not
// ONNX Runtime, or is older than MinVersion is an EUNAVAILABLE error naming
// the path and what to do.
func ProbeLib(path string) (string, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var ver [64]C.char
	var msg [512]C.char
	switch C.lexsona_ort_version(cpath, &ver[0], C.int(len(ver)), &msg[0], C.int(len(msg))) {
	case 1:
		where := path
		if !strings.ContainsRune(path, '/') {
			where = path + " (searched the system library path and .cache/ort)"
		}
		return "", engine.Errorf(engine.EUNAVAILABLE, "cannot load the ONNX Runtime library %s: %s: %s", where, C.GoString(&msg[0]), libHint)
	case 2:
		return "", engine.Errorf(engine.EUNAVAILABLE, "%s is not an ONNX Runtime library (no OrtGetApiBase): %s", path, libHint)
	}
	v := C.GoString(&ver[0])
	if !versionAtLeast(v, MinVersion) {
		return v, engine.Errorf(engine.EUNAVAILABLE, "the ONNX Runtime library %s is version %q, too old: LexSona needs >= %s; %s", path, v, MinVersion, libHint)
	}
	return v, nil
}

// versionAtLeast compares dotted numeric versions ("1.30.0" >= "1.24.0").
// Anything unparsable is "not at least".
func versionAtLeast(v, minimum string) bool {
	a, b := strings.Split(v, "."), strings.Split(minimum, ".")
	if v == "" {
		return false
	}
	for i := range b {
		ai := "0" // a missing component is 0: "1.24" == "1.24.0"
		if i < len(a) {
			ai = a[i]
		}
		x, err1 := strconv.Atoi(strings.TrimFunc(ai, func(r rune) bool { return r < '0' || r > '9' }))
		y, err2 := strconv.Atoi(b[i])
		if err1 != nil || err2 != nil {
			return false
		}
		if x != y {
			return x > y
		}
	}
	return true
}

// Usable finds the library as FindLib does and probes it as ProbeLib does,
// returning it and its version; the error is theirs.
func Usable(explicit string) (lib, version string, err error) {
	if lib, err = FindLib(explicit); err != nil {
		return "", "", err
	}
	version, err = ProbeLib(lib)
	return lib, version, err
}

// describeLib is "path (ONNX Runtime version)" for log lines.
func describeLib(path, version string) string {
	return fmt.Sprintf("%s (ONNX Runtime %s)", path, version)
}
