package hooks

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"gopkg.in/yaml.v3"
)

// ProjectFile is the optional per-project settings file, at the project root.
const ProjectFile = ".lexsona.yaml"

// ProjectConfig is what .lexsona.yaml may set. Empty fields keep what is
// detected; DetectTags false turns language detection off.
type ProjectConfig struct {
	Project     string   `yaml:"project"`
	Environment string   `yaml:"environment"`
	Agent       string   `yaml:"agent"`
	Tags        []string `yaml:"tags"`
	DetectTags  *bool    `yaml:"detect_tags"`
}

// languageFiles maps a file at the project root to the tag it implies.
var languageFiles = []struct{ file, tag string }{
	{"go.mod", "go"},
	{"package.json", "javascript"},
	{"tsconfig.json", "typescript"},
	{"pyproject.toml", "python"},
	{"requirements.txt", "python"},
	{"setup.py", "python"},
	{"Cargo.toml", "rust"},
	{"pom.xml", "java"},
	{"build.gradle", "java"},
	{"build.gradle.kts", "kotlin"},
	{"Gemfile", "ruby"},
	{"composer.json", "php"},
	{"mix.exs", "elixir"},
	{"Package.swift", "swift"},
}

// ProjectRoot is the nearest folder at or above dir holding .git or
// .lexsona.yaml, else dir itself.
func ProjectRoot(dir string) string { return projectRootWithin(dir, "") }

// projectRootWithin is ProjectRoot that climbs no higher than limit (any
// height when limit is "").
func projectRootWithin(dir, limit string) string {
	for d := dir; ; {
		for _, marker := range []string{".git", ProjectFile} {
			if _, err := os.Lstat(filepath.Join(d, marker)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d || d == limit {
			return dir
		}
		d = parent
	}
}

// DetectScope is the scope of an agent session working in dir for agent
// family agent: the project is the name of the git remote "origin" of the
// project root (the last part of its URL, without .git), else the root's
// folder name; the tags are the languages detected from files at the root
// (go.mod → go, package.json → javascript, pyproject.toml → python, …).
// .lexsona.yaml at the root overrides the project, environment and agent and
// adds tags. Only bounded regular files are read (readProjectFileIn): a
// .lexsona.yaml that is a FIFO, a device or over 64 KiB is refused, a
// .git/config of that kind ignored. Errors: EINVALID for an unreadable or
// malformed .lexsona.yaml or a scope value it gives that is not valid.
func DetectScope(dir, agent string) (engine.Scope, error) {
	return detectScope(ProjectRoot(dir), agent)
}

func detectScope(root, agent string) (engine.Scope, error) {
	return detectScopeIn(dirFS{}, root, agent)
}

// detectScopeIn is detectScope reading the project's files through fsys.
func detectScopeIn(fsys projectFS, root, agent string) (engine.Scope, error) {
	cfg, err := loadProjectConfig(fsys, filepath.Join(root, ProjectFile))
	if err != nil {
		return engine.Scope{}, err
	}
	s := engine.Scope{Project: cfg.Project, Environment: cfg.Environment, AgentFamily: agent, ContextTags: cfg.Tags}
	if cfg.Agent != "" {
		s.AgentFamily = cfg.Agent
	}
	if s.Project == "" {
		s.Project = sanitize(gitRemoteName(fsys, root))
	}
	if s.Project == "" {
		s.Project = sanitize(filepath.Base(root))
	}
	if cfg.DetectTags == nil || *cfg.DetectTags {
		for _, lf := range languageFiles {
			if fsys.exists(filepath.Join(root, lf.file)) {
				s.ContextTags = append(s.ContextTags, lf.tag)
			}
		}
	}
	return engine.ParseScope(s)
}

func loadProjectConfig(fsys projectFS, path string) (ProjectConfig, error) {
	var cfg ProjectConfig
	data, err := readProjectFileIn(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		if _, remote := fsys.(rootFS); remote {
			// The service's caller learns that the file is malformed, not
			// what it holds.
			return cfg, engine.Errorf(engine.EINVALID, "%s is not a valid %s", path, ProjectFile)
		}
		return cfg, engine.Errorf(engine.EINVALID, "%s: %v", path, err)
	}
	return cfg, nil
}

// gitRemoteName reads the URL of remote "origin" from root/.git/config (a
// bounded regular file, see readProjectFileIn) and returns its last path
// element without .git ("" when there is none or the file is not readable).
func gitRemoteName(fsys projectFS, root string) string {
	data, err := readProjectFileIn(fsys, filepath.Join(root, ".git", "config"))
	if err != nil {
		return ""
	}
	inOrigin := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inOrigin = line == `[remote "origin"]`
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !inOrigin || !ok || strings.TrimSpace(key) != "url" {
			continue
		}
		url := strings.TrimSuffix(strings.TrimRight(strings.TrimSpace(val), "/"), ".git")
		if i := strings.LastIndexAny(url, "/:"); i >= 0 {
			url = url[i+1:]
		}
		return url
	}
	return ""
}

// sanitize makes a folder or repository name a scope value: lower case,
// characters other than letters, digits, '.', '_' and '-' become '-'.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-.")
}
