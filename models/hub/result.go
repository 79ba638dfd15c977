package hub

import "fmt"

// Result is what a Pull did: each file it handled, in the order fetched.
type Result struct {
	Dir     string `json:"model_dir"`
	Variant string `json:"variant"`
	Files   []File `json:"files"`
}

// File is one repository file a Pull handled.
type File struct {
	Path string `json:"path"` // the repository path, e.g. "onnx/model.onnx"
	// Status is "downloaded", "resumed" (a .part file an earlier run left
	// was there to continue from) or "kept" (already there and intact).
	Status string `json:"status"`
	Size   int64  `json:"size"` // bytes; -1 when the hub sent no size
	// Check says how the file was verified: "sha256 verified", "git sha1
	// verified", "size checked", or "not verified: …" when the hub sent
	// neither size nor checksum.
	Check string `json:"check"`
}

// String is the file's line for people: "onnx/model.onnx downloaded, 86.2
// MiB (sha256 verified)".
func (f File) String() string {
	return fmt.Sprintf("%s %s, %s (%s)", f.Path, f.Status, humanBytes(f.Size), f.Check)
}

// check says how rf's checksum headers let a file be verified.
func (rf remoteFile) check() string {
	switch {
	case rf.sha256 != "":
		return "sha256 verified"
	case rf.gitSHA != "":
		return "git sha1 verified"
	case rf.size < 0:
		return "not verified: the hub sent no size or checksum"
	}
	return "size checked"
}

func humanBytes(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
