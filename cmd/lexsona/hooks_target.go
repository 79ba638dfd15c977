package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/server"
)

// hookTarget is what `hooks install` writes: HTTP hooks posting to url, or
// command hooks running command; why says how it was chosen.
type hookTarget struct {
	http    bool
	target  string // the URL or the command
	why     string
	warning string
}

// probeTimeout bounds the look for a running service.
const probeTimeout = 500 * time.Millisecond

// chooseHookTarget picks the hooks to install when neither --http nor
// --command is given: HTTP hooks when a LexSona service answers /healthz at
// addr (each prompt then costs a request, not a model load), with the
// project's scope in the URL's query for a project's settings (the service
// never reads the project's files); else command hooks running this binary
// by its absolute path, or `lexsona` found on PATH, with a warning when
// neither can be found.
func chooseHookTarget(ctx context.Context, addr, projectDir string) hookTarget {
	base := "http://" + addr
	if serviceAnswers(ctx, base) {
		u := base + hooks.HTTPRoute
		why := "a LexSona service answers at " + base + ": HTTP hooks, one request per event"
		if projectDir != "" {
			if q, err := scopeQuery(projectDir); err == nil && q != "" {
				u += "?" + q
			}
		}
		return hookTarget{http: true, target: u, why: why}
	}
	why := "no LexSona service answers at " + base + " (start one with `lexsona serve` or `make run` and install again for HTTP hooks): command hooks, which load the model on each prompt"
	if cmd, ok := lexsonaCommand(); ok {
		return hookTarget{target: cmd, why: why}
	}
	return hookTarget{target: hooks.DefaultHookCommand, why: why,
		warning: "lexsona is not on PATH and this binary's path is unknown: the hooks run `lexsona`, so put it on Claude Code's PATH or install again with --command /abs/path/lexsona hook claude-code"}
}

// serviceAnswers reports whether GET base/healthz answers 200 within
// probeTimeout.
func serviceAnswers(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// scopeQuery is the query naming the scope of the project in dir
// (project and context_tags), as DetectScope finds it.
func scopeQuery(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	s, err := hooks.DetectScope(abs, hooks.AgentClaude)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	if s.Project != "" {
		q.Set("project", s.Project)
	}
	if s.Environment != "" {
		q.Set("environment", s.Environment)
	}
	if len(s.ContextTags) > 0 {
		q.Set("context_tags", strings.Join(s.ContextTags, ","))
	}
	return q.Encode(), nil
}

// lexsonaCommand is the hook command by an absolute path: this binary when
// it is lexsona, else lexsona found on PATH.
func lexsonaCommand() (string, bool) {
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "lexsona" {
		return quoteArg(exe) + " hook claude-code", true
	}
	if p, err := exec.LookPath("lexsona"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return quoteArg(abs) + " hook claude-code", true
		}
	}
	return "", false
}

// quoteArg single-quotes p for a shell when it holds anything but safe
// characters.
func quoteArg(p string) string {
	if strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+", r))
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// defaultServiceAddr is where `hooks install` looks for a running service:
// $LEXSONA_ADDR (a.cfg.Addr), else the service's default address.
func (a *app) defaultServiceAddr() string { return cmp.Or(a.cfg.Addr, server.DefaultAddr) }

func (t hookTarget) describe() string {
	kind := "command"
	if t.http {
		kind = "HTTP"
	}
	return fmt.Sprintf("%s hooks (%s)", kind, t.target)
}
