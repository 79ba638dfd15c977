// Package e2e holds LexSona's end-to-end proofs: tests that drive the real
// binary (cmd/lexsona, built once per test run), the real SQLite file, real
// HTTP on 127.0.0.1 and the MCP SDK's own client, and check the properties
// the service promises its users. It has no code of its own, only tests:
//
//   - concurrency_test.go: 64 concurrent clients send 32,000 corrections over
//     10 rules; every acknowledged correction is counted once in alpha and
//     beta, and no client sees a database-busy error (or any 5xx).
//   - crash_test.go: the binary under a write load is killed with SIGKILL at
//     seeded random moments, 20 times; after each kill every acknowledged
//     correction is on disk, PRAGMA integrity_check says ok, idempotency keys
//     still replay, and the restarted binary is ready within 5 seconds.
//   - badinput_test.go, badinput_cases_test.go: one table of bad inputs across
//     HTTP, the CLI and MCP, each with its expected status or exit code and
//     message, each followed by a check that nothing was written.
//   - security_test.go, isolation_test.go: API keys on every /v1 route of the
//     OpenAPI document, scope isolation between projects and environments,
//     and internal errors that never reach a response.
//   - crash_startup_test.go: SIGKILL during the very first start (migration,
//     registry sync), then a clean start with nothing lost or half-done.
//   - faults_*_test.go: faults that must answer honestly — a full disk (a
//     tmpfs mounted for the test), a read-only database, corrupt pages, a
//     kill during a registry sync, an embeddings flood, MCP frames that are
//     not JSON-RPC messages, control characters, an API-keys file readable
//     by others — each checking the status, readiness and that no
//     acknowledged write is lost. They need root to mount; they skip
//     without it, and fail instead under LEXSONA_REQUIRE_FAULTS=1 (CI).
//   - soak_test.go: a few minutes at a fixed request rate; resident memory
//     stays flat and p99 latency within 2× of p50 on every route. Skipped
//     unless LEXSONA_SOAK=1.
//
// Run them with
//
//	go test ./e2e/                      # under a minute on 2 cores
//	LEXSONA_SOAK=1 go test ./e2e/ -run Soak -v -timeout 15m
//
// LEXSONA_SOAK_DURATION (a Go duration, default 3m), LEXSONA_SOAK_RATE
// (requests per second, default 200) and LEXSONA_SOAK_TEXTS (how many
// distinct texts the classify requests cycle through; default 0, every one
// new) tune the soak; LEXSONA_CRASH_SEED picks
// the crash test's kill moments (the seed is logged, so a failure can be
// replayed). Every server listens on 127.0.0.1 only.
package e2e
