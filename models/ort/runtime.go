package ort

import (
	"path/filepath"
	"sync"

	onnxrt "github.com/yalue/onnxruntime_go"

	"github.com/lexsona/lexsona/engine"
)

// ortState is the process-wide ONNX Runtime environment: initialised once,
// from one library, and never destroyed.
var ortState struct {
	sync.Mutex
	lib, version string
}

// Init makes sure ONNX Runtime is initialised from lib, once per process,
// and returns its version. A library that is missing, unusable or too old is
// an EUNAVAILABLE error naming the path (see ProbeLib); so is asking for a
// second library once one is loaded.
func Init(lib string) (string, error) {
	version, err := ProbeLib(lib)
	if err != nil {
		return "", err
	}
	ortState.Lock()
	defer ortState.Unlock()
	if onnxrt.IsInitialized() {
		if ortState.lib != "" && !sameFile(ortState.lib, lib) {
			return "", engine.Errorf(engine.EUNAVAILABLE,
				"ONNX Runtime is already loaded from %s in this process and cannot also be loaded from %s: use one library (LEXSONA_ORT_LIB)", ortState.lib, lib)
		}
		return onnxrt.GetVersion(), nil
	}
	onnxrt.SetSharedLibraryPath(lib)
	if err := onnxrt.InitializeEnvironment(onnxrt.WithLogLevelError()); err != nil {
		return "", engine.Errorf(engine.EUNAVAILABLE, "cannot initialise ONNX Runtime %s from %s: %v; %s", version, lib, err, libHint)
	}
	ortState.lib, ortState.version = lib, version
	return version, nil
}

// version is the version of the loaded ONNX Runtime, "" before Init.
func version() string {
	ortState.Lock()
	defer ortState.Unlock()
	return ortState.version
}

func sameFile(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return ra == rb
}
