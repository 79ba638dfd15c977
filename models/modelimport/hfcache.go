package modelimport

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// FindInHFCache returns the newest snapshot of spec's repository in the
// Hugging Face hub cache folder hub (config.Config.HFHubDir: $HF_HUB_CACHE,
// else $HF_HOME/hub, …) that holds a model file, and whether there is one;
// a hub of "" has none.
func FindInHFCache(hub string, spec Spec) (string, bool) {
	if hub == "" {
		return "", false
	}
	snap, err := newestSnapshot(filepath.Join(hub, spec.hfCacheFolder()))
	return snap, err == nil
}

// hfSnapshot recognises a Hugging Face cache in dir — the HF home, its hub/
// folder, the repository's models--… folder or one of its snapshots — and
// returns the snapshot to import. ok is false when dir is none of these.
// Errors are EINVALID: a hub cache without the spec's repository, or a
// repository folder without a usable snapshot.
func hfSnapshot(dir string, spec Spec) (string, bool, error) {
	if filepath.Base(filepath.Dir(dir)) == "snapshots" {
		return dir, true, nil
	}
	for _, repo := range []string{dir, filepath.Join(dir, spec.hfCacheFolder()), filepath.Join(dir, "hub", spec.hfCacheFolder())} {
		if st, err := os.Stat(filepath.Join(repo, "snapshots")); err == nil && st.IsDir() {
			snap, err := newestSnapshot(repo)
			return snap, err == nil, err
		}
	}
	for _, hub := range []string{dir, filepath.Join(dir, "hub")} {
		if m, _ := filepath.Glob(filepath.Join(hub, "models--*")); len(m) > 0 {
			return "", false, engine.Errorf(engine.EINVALID, "the Hugging Face cache %s has no %s (it holds %s)", hub, spec.hfCacheFolder(), baseNames(m))
		}
	}
	return "", false, nil
}

// newestSnapshot is the most recently modified folder in repo/snapshots that
// holds model.safetensors, onnx/model.onnx or model.onnx whose links resolve.
// Error: EINVALID naming repo when there is none.
func newestSnapshot(repo string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(repo, "snapshots"))
	if err != nil {
		return "", engine.Errorf(engine.EINVALID, "cannot list %s: %v", filepath.Join(repo, "snapshots"), unwrapPathErr(err))
	}
	type snap struct {
		dir   string
		mtime int64
	}
	var snaps []snap
	for _, e := range entries {
		dir := filepath.Join(repo, "snapshots", e.Name())
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			continue
		}
		for _, m := range []string{"model.safetensors", "onnx/model.onnx", "model.onnx"} {
			if fst, err := os.Stat(filepath.Join(dir, filepath.FromSlash(m))); err == nil && fst.Mode().IsRegular() {
				snaps = append(snaps, snap{dir, st.ModTime().UnixNano()})
				break
			}
		}
	}
	if len(snaps) == 0 {
		return "", engine.Errorf(engine.EINVALID, "%s has no snapshot holding model.safetensors or onnx/model.onnx (an unfinished download?)", repo)
	}
	sort.Slice(snaps, func(i, j int) bool {
		if snaps[i].mtime != snaps[j].mtime {
			return snaps[i].mtime > snaps[j].mtime
		}
		return snaps[i].dir > snaps[j].dir
	})
	return snaps[0].dir, nil
}

// blobDigest is the checksum a hub cache file carries: a snapshot's files
// are links to blobs/<name>, where name is the LFS sha256 of a large file
// and the git blob sha1 of a small one.
func blobDigest(p string) (digest, bool) {
	st, err := os.Lstat(p)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return digest{}, false
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil || filepath.Base(filepath.Dir(target)) != "blobs" {
		return digest{}, false
	}
	name := filepath.Base(target)
	if !isHex(name) {
		return digest{}, false
	}
	switch len(name) {
	case 64:
		return digest{algo: "sha256", hex: name, from: "its Hugging Face blob name"}, true
	case 40:
		return digest{algo: "git-sha1", hex: name, from: "its Hugging Face blob name"}, true
	}
	return digest{}, false
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return s != ""
}

func baseNames(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return strings.Join(out, ", ")
}
