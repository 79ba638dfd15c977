package hooks

import (
	"net/url"

	"github.com/lexsona/lexsona/engine"
)

// HTTPRoute is the path of the service's Claude Code hook route.
const HTTPRoute = "/v1/hooks/claude-code"

// HTTPKeyEnv is the environment variable an HTTP hook reads its API key from:
// Claude Code sends "Authorization: Bearer $LEXSONA_API_KEY" (empty when the
// variable is unset, which a service without keys accepts).
const HTTPKeyEnv = "LEXSONA_API_KEY"

// httpHookTimeout is the timeout, in seconds, written with the PreToolUse
// HTTP hook.
// Claude Code treats a refused connection, a non-2xx answer and a timeout of
// an HTTP hook as a non-blocking error: the prompt or tool call goes on
// without LexSona. A service that is down fails at once; this bounds what a
// service that accepts but never answers costs each event (the service's
// p99 is well under a second; Claude Code's own default is 600 s, 30 s for
// UserPromptSubmit). No onFailure field is written: "block" there would
// turn LexSona being down into every tool call blocked.
const httpHookTimeout = 5

// ValidateHookURL checks that u is an absolute http or https URL. Errors:
// EINVALID naming u.
func ValidateHookURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return engine.Errorf(engine.EINVALID, "hook URL %q: want an absolute http:// or https:// URL, like http://127.0.0.1:8080%s", u, HTTPRoute)
	}
	return nil
}
