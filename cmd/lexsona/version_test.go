package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	c := newCLI(t)
	code, out, errs := c.run("version", "--json", "--ort-lib", "/nonexistent/libonnxruntime.so.1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if v.Version == "" || v.GoVersion != runtime.Version() || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version %+v", v)
	}
	if v.ORTVersion != "" || !strings.Contains(v.ORTError, "/nonexistent/libonnxruntime.so.1") {
		t.Errorf("a missing ONNX Runtime: %+v", v)
	}
	if want := buildVersion(); v.Version != want.Version || v.Commit != want.Commit {
		t.Errorf("version %q commit %q, the binary says %q %q", v.Version, v.Commit, want.Version, want.Commit)
	}

	code, out, _ = c.run("version", "--ort-lib", "/nonexistent/libonnxruntime.so.1")
	if code != 0 || !strings.HasPrefix(out, "lexsona "+buildVersion().short()+"\n") || !strings.Contains(out, "onnxruntime not usable") {
		t.Errorf("version: exit %d\n%s", code, out)
	}
	code, out, _ = c.run("--version")
	if code != 0 || out != "lexsona "+buildVersion().short()+"\n" {
		t.Errorf("--version: exit %d %q", code, out)
	}
	if code, _, errs := c.run("version", "extra"); code != 2 || !strings.Contains(errs, "takes no arguments") {
		t.Errorf("version extra: exit %d %s", code, errs)
	}
}

func TestVersionShort(t *testing.T) {
	tests := []struct {
		v    versionInfo
		want string
	}{
		{versionInfo{Version: "devel", GoVersion: "go1.26.8", Platform: "linux/amd64"}, "devel go1.26.8 linux/amd64"},
		{versionInfo{Version: "v1.2.3", Commit: "a04f9a63f4150dd75820b879d0d7c2392eef6700", GoVersion: "go1.26.8", Platform: "linux/arm64"},
			"v1.2.3 (commit a04f9a63f415) go1.26.8 linux/arm64"},
		{versionInfo{Version: "v0.0.0-x+dirty", Commit: "abc", Modified: true, GoVersion: "go1.26.8", Platform: "darwin/arm64"},
			"v0.0.0-x+dirty (commit abc, modified) go1.26.8 darwin/arm64"},
	}
	for _, tt := range tests {
		if got := tt.v.short(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}
