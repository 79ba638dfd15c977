package main

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/server"
	"github.com/spf13/cobra"
)

// hookTarget is what `hooks install` writes: command hooks running
// command, delivering to the service at server when set; why says how it
// was chosen, warning what the user should know.
type hookTarget struct {
	command string
	server  string
	why     string
	warning string
}

// probeTimeout bounds the look for a running service.
const probeTimeout = 500 * time.Millisecond

// chooseHookTarget picks the hooks when neither --http nor --command is
// given: command hooks running command, with the service at addr when one
// answers /healthz there (each prompt then costs a request, not a model
// load).
func chooseHookTarget(ctx context.Context, addr, command string) hookTarget {
	base := "http://" + addr
	t := hookTarget{command: command}
	if serviceAnswers(ctx, base) {
		t.server, t.why = base, "a LexSona service answers at "+base+": the hooks ask it, and prompts are delivered to it"
	} else {
		t.why = "no LexSona service answers at " + base + ": the hooks use this machine's database (start `lexsona serve` and install again to use the service)"
	}
	if command == hooks.DefaultHookCommand {
		t.warning = "lexsona is not on PATH and this binary's path is unknown: the hooks run `lexsona`, so put it on Claude Code's PATH or install again with --command '/abs/path/lexsona hook claude-code'"
	}
	return t
}

// hookCommand is this binary by its absolute path (else lexsona found on
// PATH, else DefaultHookCommand) + " hook claude-code".
func (a *app) hookCommand() string {
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "lexsona" {
		return quoteArg(exe) + " hook claude-code"
	}
	if p, err := exec.LookPath("lexsona"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return quoteArg(abs) + " hook claude-code"
		}
	}
	return hooks.DefaultHookCommand
}

// prepareHooks completes t into what install writes, for the project in
// project ("" for the user's settings): the PreToolUse matcher from the
// registries in force, the service's hook URL with the project's scope;
// without a service (and unless noPrepare) the database is prepared — the
// registries synced and every rule text embedded, with a progress line —
// so that the first prompt is classified at once. It returns warnings: a
// service that wants an API key this environment does not give.
func (a *app) prepareHooks(cmd *cobra.Command, t hookTarget, project string, noPrepare bool) (hooks.Install, []string, error) {
	ctx := cmd.Context()
	spec := hooks.Install{Command: t.command, Server: t.server}
	var warnings []string
	if t.server == "" && !noPrepare {
		fmt.Fprintln(a.stderr, "lexsona: preparing the database for the hooks (registries synced, rule texts embedded)…")
		core, err := a.openCore(ctx)
		if err != nil {
			return spec, nil, err
		}
		fmt.Fprintf(a.stderr, "lexsona: ready: %d texts embedded now, %d already (%s %s)\n", core.Sync.Embedded, core.Sync.Skipped, core.Sync.Embedder, core.Sync.Model)
	}
	mem, err := a.openMemory(ctx)
	if err != nil {
		return spec, nil, err
	}
	reg, err := mem.InForce(ctx)
	if err != nil {
		return spec, nil, err
	}
	spec.Matcher = hooks.EnforcedTools(reg)
	if t.server != "" {
		spec.PreToolURL = t.server + hooks.HTTPRoute
		if project != "" {
			if q, err := scopeQuery(project); err == nil && q != "" {
				spec.PreToolURL += "?" + q
			}
		}
		if a.serviceNeedsKey(t.server) {
			warnings = append(warnings, fmt.Sprintf("the service at %s needs an API key and $%s does not give one it accepts: set %s=KEY in the environment Claude Code starts with, or the hooks are refused (401)",
				t.server, hooks.HTTPKeyEnv, hooks.HTTPKeyEnv))
		}
	}
	return spec, warnings, nil
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
// (project, environment and context_tags), as DetectScope finds it.
func scopeQuery(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	s, err := hooks.DetectScope(abs, hooks.AgentClaude)
	if err != nil {
		return "", err
	}
	q := scopeValues(s)
	q.Del("agent_family")
	return q.Encode(), nil
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
	if t.server != "" {
		return fmt.Sprintf("hooks (%s, service %s)", t.command, t.server)
	}
	return fmt.Sprintf("command hooks (%s)", t.command)
}

func (t hookTarget) warnings() []string {
	if t.warning == "" {
		return nil
	}
	return []string{t.warning}
}
