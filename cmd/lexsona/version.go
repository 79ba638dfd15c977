package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/models/ort"
)

// version is the release version, set at link time with
// -ldflags "-X main.version=v1.2.3"; when empty, the module version the Go
// toolchain stamped into the binary is used.
var version string

// versionInfo is the answer of `lexsona version`.
type versionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit,omitempty"`      // vcs.revision of the build, when built from a git work tree
	CommitTime string `json:"commit_time,omitempty"` // vcs.time
	Modified   bool   `json:"modified,omitempty"`    // the work tree had uncommitted changes
	GoVersion  string `json:"go_version"`
	Platform   string `json:"platform"`
	// ORTVersion is the version of the ONNX Runtime library the ort embedder
	// would load (ORTLib), or ORTError says why none can be loaded.
	ORTVersion string `json:"onnxruntime_version,omitempty"`
	ORTLib     string `json:"onnxruntime_library,omitempty"`
	ORTError   string `json:"onnxruntime_error,omitempty"`
}

// buildVersion reads the binary's own build information: no library is
// loaded and nothing is opened.
func buildVersion() versionInfo {
	v := versionInfo{Version: version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "unknown"
		}
		return v
	}
	if v.Version == "" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" || v.Version == "(devel)" {
		v.Version = "devel"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// short is the one-line form: "devel (commit 0123456789ab, modified) go1.26.8 linux/amd64".
func (v versionInfo) short() string {
	var b strings.Builder
	b.WriteString(v.Version)
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		b.WriteString(" (commit " + c)
		if v.Modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	b.WriteString(" " + v.GoVersion + " " + v.Platform)
	return b.String()
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from, the Go version and the ONNX Runtime found",
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := buildVersion()
			lib, ver, _, err := ort.Usable(a.ortLib, a.cfg.ORTLib, a.cfg.UserDataDir())
			v.ORTLib, v.ORTVersion = lib, ver
			if err != nil {
				v.ORTError = err.Error()
			}
			return a.output(v, func(w io.Writer) {
				fmt.Fprintf(w, "lexsona %s\n", v.short())
				if v.CommitTime != "" {
					fmt.Fprintf(w, "  committed   %s\n", v.CommitTime)
				}
				if v.ORTVersion != "" {
					fmt.Fprintf(w, "  onnxruntime %s (%s)\n", v.ORTVersion, v.ORTLib)
				}
				if v.ORTError != "" {
					fmt.Fprintf(w, "  onnxruntime not usable: %s\n", v.ORTError)
				}
			})
		},
	}
}
