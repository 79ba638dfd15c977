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
	"github.com/lexsona/lexsona/internal/datadir"
	"github.com/lexsona/lexsona/models"
)

// MinVersion is the oldest ONNX Runtime that onnxruntime_go v1.27 (C API
// version 24) can use.
const MinVersion = "1.24.0"

// libName is the file `make ort` installs under .cache/ort.
const libName = "libonnxruntime.so.1"

// libHint is what every "the library is missing or unusable" message says.
const libHint = "run `make ort` (and `make install` for an installed lexsona) or set LEXSONA_ORT_LIB (--ort-lib) to a libonnxruntime.so.1 of version >= " + MinVersion

// SearchLib picks the ONNX Runtime library: explicit (the option), else
// fromEnv (the path LEXSONA_ORT_LIB names, which the caller read: the
// candidate is reported under the variable's name), else the first
// libonnxruntime.so.1 that exists in
// .cache/ort of the current folder or one of its parents up to the
// repository root (a checkout), in .cache/ort next to the executable (or
// its parent), or in <installDir>/ort (where `make install` copies it; ""
// skips it), else the bare name libonnxruntime.so.1 for the system loader.
// It returns every candidate looked at, with what was found there; the
// library is not loaded (ProbeLib does that). An explicit or env path that
// does not exist is an EUNAVAILABLE error naming it; the search never falls
// back past a path it was given.
func SearchLib(explicit, fromEnv, installDir string) (string, []models.Candidate, error) {
	var tried []models.Candidate
	for _, c := range []models.Candidate{{Source: "option", Path: explicit}, {Source: "LEXSONA_ORT_LIB", Path: fromEnv}} {
		if c.Path == "" {
			c.Why = "not set"
			tried = append(tried, c)
			continue
		}
		if _, err := os.Stat(c.Path); err != nil {
			c.Why = fmt.Sprintf("%v", models.StatCause(err))
			tried = append(tried, c)
			return "", tried, engine.Errorf(engine.EUNAVAILABLE, "no ONNX Runtime library at %s (%v): %s", c.Path, models.StatCause(err), libHint)
		}
		c.Taken, c.Why = true, "given, and the file exists"
		return c.Path, append(tried, c), nil
	}
	for _, c := range libCandidates(installDir) {
		if _, err := os.Stat(c.Path); err != nil {
			c.Why = fmt.Sprintf("%v", models.StatCause(err))
			tried = append(tried, c)
			continue
		}
		c.Taken, c.Why = true, "the first of the searched places that has it"
		return c.Path, append(tried, c), nil
	}
	return libName, append(tried, models.Candidate{Source: "system", Path: libName, Taken: true,
		Why: "none of the places above has it: left to the system loader (LD_LIBRARY_PATH, ldconfig's cache)"}), nil
}

// libCandidates are the library files SearchLib looks for, in order: in
// .cache/ort of the working folder and its parents up to the one holding
// go.mod, of the executable's folder and its parent, then in installDir/ort.
func libCandidates(installDir string) []models.Candidate {
	var out []models.Candidate
	at := func(source, dir string) {
		out = append(out, models.Candidate{Source: source, Path: filepath.Join(dir, ".cache", "ort", libName)})
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			at("checkout", d)
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil || filepath.Dir(d) == d {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		at("executable", filepath.Dir(exe))
		at("executable", filepath.Dir(filepath.Dir(exe)))
	}
	if installDir != "" {
		out = append(out, models.Candidate{Source: "installed", Path: InstalledLib(installDir)})
	}
	return out
}

// InstalledLib is where `make install` copies the library under the data
// folder dataDir: <dataDir>/ort/libonnxruntime.so.1.
func InstalledLib(dataDir string) string {
	return filepath.Join(dataDir, datadir.ORTDir, libName)
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
			where = path + " (searched .cache/ort of a checkout and beside the executable, the installed data folder's ort/, then the system library path)"
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

// Usable finds the library as SearchLib does and probes it as ProbeLib
// does. It returns the library (even when the probe refuses it), its
// version, the candidates looked at, and SearchLib's or ProbeLib's error.
func Usable(explicit, fromEnv, installDir string) (lib, version string, tried []models.Candidate, err error) {
	if lib, tried, err = SearchLib(explicit, fromEnv, installDir); err != nil {
		return "", "", tried, err
	}
	version, err = ProbeLib(lib)
	return lib, version, tried, err
}

// describeLib is "path (ONNX Runtime version)" for log lines.
func describeLib(path, version string) string {
	return fmt.Sprintf("%s (ONNX Runtime %s)", path, version)
}
