package hooks

import (
	"encoding/json"
	"net/url"

	"github.com/lexsona/lexsona/engine"
)

// HTTPRoute is the path of the service's Claude Code hook route.
const HTTPRoute = "/v1/hooks/claude-code"

// HTTPKeyEnv is the environment variable an HTTP hook reads its API key from:
// Claude Code sends "Authorization: Bearer $LEXSONA_API_KEY" (empty when the
// variable is unset, which a service without keys accepts).
const HTTPKeyEnv = "LEXSONA_API_KEY"

// httpHookTimeout is the timeout, in seconds, written with each HTTP hook.
// Claude Code treats a refused connection, a non-2xx answer and a timeout of
// an HTTP hook as a non-blocking error: the prompt or tool call goes on
// without LexSona. A service that is down fails at once; this bounds what a
// service that accepts but never answers costs each event (the service's
// p99 is well under a second; Claude Code's own default is 600 s, 30 s for
// UserPromptSubmit). No onFailure field is written: "block" there would
// turn LexSona being down into every tool call blocked.
const httpHookTimeout = 5

// ourHTTPGroup is the group LexSona adds to each installed event for HTTP
// hooks posting to url.
func ourHTTPGroup(url string) json.RawMessage {
	g, _ := json.Marshal(hookGroup{Hooks: []hookAction{{
		Type: "http", URL: url,
		Headers:        map[string]string{"Authorization": "Bearer $" + HTTPKeyEnv},
		AllowedEnvVars: []string{HTTPKeyEnv},
		Timeout:        httpHookTimeout,
	}}})
	return g
}

// ValidateHookURL checks that u is an absolute http or https URL. Errors:
// EINVALID naming u.
func ValidateHookURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return engine.Errorf(engine.EINVALID, "hook URL %q: want an absolute http:// or https:// URL, like http://127.0.0.1:8080%s", u, HTTPRoute)
	}
	return nil
}

// InstallClaudeCodeHTTP is InstallClaudeCode with HTTP hooks that POST each
// event to url (the service's HTTPRoute) instead of command hooks. Errors:
// as InstallClaudeCode, and ValidateHookURL's.
func InstallClaudeCodeHTTP(settings []byte, url string) ([]byte, error) {
	if err := ValidateHookURL(url); err != nil {
		return nil, err
	}
	return installGroup(settings, ourHTTPGroup(url))
}

// UninstallClaudeCodeHTTP removes exactly the groups InstallClaudeCodeHTTP
// adds for url. Errors: as InstallClaudeCode.
func UninstallClaudeCodeHTTP(settings []byte, url string) ([]byte, error) {
	return uninstallGroup(settings, ourHTTPGroup(url))
}
