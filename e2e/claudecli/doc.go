// Package claudecli drives the real Claude Code CLI (the npm package
// @anthropic-ai/claude-code, pinned and installed into .cache/claude by
// scripts/claude.sh: `make claude-deps`) against a stand-in for the Anthropic
// Messages API on 127.0.0.1, with LexSona's hooks installed the way a user
// installs them, and checks what reaches the model. It has no code of its
// own, only tests:
//
//   - standin_test.go, messages_test.go: the stand-in. It records every
//     request and answers the agent loop's from a per-test script of turns
//     (texts and tool calls, streamed as the Messages API streams them),
//     side requests with a short text.
//   - runner_test.go: a sandbox per test (a tiny Node project, its own HOME,
//     XDG_DATA_HOME and LEXSONA_DB, an environment built from scratch) and
//     `claude -p PROMPT --debug-file F` in it, bounded by a timeout, giving
//     back the requests and the debug log; lexsona is built once.
//   - conversation_test.go: a session kept open across prompts (`claude -p
//     --input-format stream-json`), each prompt answered and its async
//     UserPromptSubmit hook ended before the next.
//   - lexsona_test.go, service_test.go: makeRuleActive, installHooks and
//     install (both kinds); a `lexsona serve` on the sandbox's database,
//     started, stopped and started again; the spool's status and a rule's
//     history as lexsona reports them.
//   - persona_test.go, deny_test.go, capture_test.go, uninstall_test.go:
//     LexSona's hooks through Claude Code: the SessionStart persona in the
//     first request, a PreToolUse deny as the tool's error result, a prompt
//     captured as a correction, and `hooks uninstall` restoring the user's
//     settings byte for byte.
//   - kinds_test.go, once_test.go, stated_test.go, judge_test.go: both
//     install kinds (command hooks; --http at a running service) with the
//     persona and the service's deny; a CORRECT[] prompt recorded exactly
//     once, across a service outage and a redelivered event; an explicit
//     act (CORRECT[], an accepted suggestion) stating a rule in the next
//     session's persona; the agent recording a correction with `lexsona
//     record` as SessionStart tells it to.
//   - probe_test.go, contract_test.go: probe hooks of the tests' own that pin
//     the Claude Code behaviour LexSona's hooks depend on (settings sources,
//     matchers, the hook's environment, HTTP and async hooks, exit code 2).
//
// Without the CLI the tests skip, naming `make claude-deps`;
// LEXSONA_REQUIRE_CLAUDE=1 (CI) makes that a failure, and LEXSONA_CLAUDE_BIN
// points them at another Claude Code executable.
package claudecli
