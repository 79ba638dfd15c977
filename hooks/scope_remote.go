package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// CwdScope is the scope of a session whose folder is cwd, from the text of
// cwd alone: nothing on the machine is read. The fields base sets are kept;
// an empty project becomes cwd's last element (sanitised like a folder
// name), an empty agent family agent. An empty cwd leaves the project
// empty. Errors: EINVALID for a base value that is not a valid scope value.
func CwdScope(cwd, agent string, base engine.Scope) (engine.Scope, error) {
	s := base
	if s.Project == "" && strings.TrimSpace(cwd) != "" {
		s.Project = sanitize(lastElement(cwd))
	}
	if s.AgentFamily == "" {
		s.AgentFamily = agent
	}
	return engine.ParseScope(s)
}

// lastElement is the last element of a slash- or backslash-separated path
// (a Windows caller's cwd reaches a Linux service as it is).
func lastElement(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// DetectScopeWithin is DetectScope for a folder a remote process named,
// bounded by roots: the files of dir's project are read only when dir,
// with every symbolic link resolved, lies inside one of roots (each resolved
// too), and the project root is looked for no higher than that root.
// ok is false, and nothing is read, when dir lies in none of them or does
// not exist. Errors: DetectScope's.
func DetectScopeWithin(dir, agent string, roots []string) (s engine.Scope, ok bool, err error) {
	if !filepath.IsAbs(dir) {
		return engine.Scope{}, false, nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return engine.Scope{}, false, nil
	}
	for _, r := range roots {
		root, err := filepath.EvalSymlinks(r)
		if err != nil || !within(real, root) {
			continue
		}
		pr := projectRootWithin(real, root)
		r, err := os.OpenRoot(root)
		if err != nil {
			return engine.Scope{}, false, nil
		}
		defer r.Close()
		s, err := detectScopeIn(rootFS{root: r, base: root}, pr, agent)
		return s, err == nil, err
	}
	return engine.Scope{}, false, nil
}

// within reports whether path is root or lies below it (both clean and
// absolute).
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
