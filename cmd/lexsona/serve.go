package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server"
	"github.com/spf13/cobra"
)

func newServeCmd(a *app) *cobra.Command {
	var addr, apiKeys, apiKeysFile, idemTTL string
	var maxConns, maxTexts int
	var probeAddr string
	var allowedHosts, shares, hookRoots []string
	var hookNotes string
	var metricsNeedKey, noBatching bool
	var maxBatch, queueSize int
	var maxWait time.Duration
	var bodyLimit int64
	var insecureKeys bool
	var integ integrityFlags
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080]",
		Short: "Run the HTTP API (classify, corrections, persona, rules, embeddings, metrics)",
		Long: `Serves the HTTP API until SIGINT or SIGTERM, then stops accepting, drains
in-flight requests and the embedding queue, checkpoints the database and exits 0.
The registry in force (or --registry) is synced on start. The review page is
at / on the same address, behind the same API keys. With keys that name
tenants (TENANT:write:KEY in --api-keys-file), each tenant's memory is a store
of its own beside --db, created on its first request. What the command hooks
put on the spool for this database or this service is delivered by the
service itself, at start and every few seconds.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.fullLog = true
			keys, err := serveAPIKeys(a, cmd.Flags().Changed("api-keys"), insecureKeys, apiKeys, apiKeysFile)
			if err != nil {
				return err
			}
			if maxBatch < 1 || queueSize < 1 || bodyLimit < 1024 || maxConns < 1 {
				return usagef("--max-batch, --queue-size and --max-conns must be at least 1, --body-limit at least 1024")
			}
			if maxTexts < server.MaxEmbeddingInputs {
				return usagef("--max-texts-in-flight must be at least %d, the texts one embeddings request may hold", server.MaxEmbeddingInputs)
			}
			ttl, err := parseIdempotencyTTL(idemTTL)
			if err != nil {
				return err
			}
			if _, err := server.ParseAllowedHosts(allowedHosts); err != nil {
				return usagef("--allowed-hosts: %s", engine.ErrorMessage(err))
			}
			for _, r := range hookRoots {
				if st, err := os.Stat(r); !filepath.IsAbs(r) || err != nil || !st.IsDir() {
					return usagef("--hook-root %q: want the absolute path of an existing folder", r)
				}
			}
			if _, err := hooks.ParseNotes(hookNotes); err != nil {
				return usagef("--hook-notes: %s", engine.ErrorMessage(err))
			}
			shared, err := parseShares(shares)
			if err != nil {
				return err
			}
			core, sc, err := a.openServing(cmd.Context(), &integ)
			if err != nil {
				return err
			}
			srv, err := server.New(server.Config{
				Addr: addr, Memory: core.Front(), Embedder: core.Embedder, APIKeys: keys, MetricsNeedKey: metricsNeedKey,
				Tenants: setup.TenantMemories(sc), TenantEmbedder: setup.TenantEmbedder(sc), SharedRegistries: shared,
				MaxBatch: maxBatch, MaxWait: maxWait, QueueSize: queueSize, NoBatching: noBatching,
				BodyLimit: bodyLimit, IdempotencyTTL: ttl, AllowedHosts: allowedHosts, HookRoots: hookRoots, HookNotes: hookNotes, MaxConns: maxConns, MaxTextsInFlight: maxTexts, ProbeAddr: probeAddr, Logger: a.logger(),
			})
			if err != nil {
				return err
			}
			a.mem = nil // the server owns the store now and closes it (its memory) on shutdown
			drainCtx, stopDrain := context.WithCancel(cmd.Context())
			drained := make(chan struct{})
			go func() { defer close(drained); a.drainSpoolWhileServing(drainCtx, core.Memory, addr, a.logger()) }()
			err = srv.Run(cmd.Context())
			stopDrain()
			<-drained
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&addr, "addr", cmp.Or(a.cfg.Addr, server.DefaultAddr), "listen address (env LEXSONA_ADDR)")
	f.StringVar(&apiKeysFile, "api-keys-file", a.cfg.APIKeysFile,
		"file of API keys, one read:KEY or write:KEY per line (a bare KEY is a write key), or TENANT:read:KEY, TENANT:write:KEY for a named tenant with a memory of its own; readable by its owner only (chmod 600) (env LEXSONA_API_KEYS_FILE)")
	f.StringVar(&apiKeys, "api-keys", a.cfg.APIKeys,
		"API keys, e.g. read:KEY1,write:KEY2 (env LEXSONA_API_KEYS); on the command line they show in the process list, so the flag is refused without --insecure-keys-on-command-line: use the variable or --api-keys-file; no keys: no auth")
	f.BoolVar(&insecureKeys, "insecure-keys-on-command-line", false,
		"accept --api-keys although every local user can read it in the process list (ps)")
	f.StringVar(&probeAddr, "probe-addr", "", "an `ADDR` (e.g. 127.0.0.1:8081) whose listener answers only /healthz and /readyz, outside --max-conns: point health probes there so they never wait behind the API's connections")
	f.IntVar(&maxConns, "max-conns", server.DefaultMaxConns,
		fmt.Sprintf("most open connections for any request; past them %d more answer only health probes (/healthz, /readyz; anything else 503), and the rest wait to be accepted", server.DefaultProbeConns))
	f.IntVar(&maxTexts, "max-texts-in-flight", server.DefaultMaxTextsInFlight,
		"most texts embedded at once across /v1/embeddings, classify and corrections; past it 429 with Retry-After")
	f.StringSliceVar(&allowedHosts, "allowed-hosts", slices.Clone(a.cfg.AllowedHosts),
		"extra Host names accepted on a loopback address, e.g. a reverse proxy's (env LEXSONA_ALLOWED_HOSTS, comma-separated)")
	f.StringSliceVar(&hookRoots, "hook-root", slices.Clone(a.cfg.HookRoots),
		"a folder under which the Claude Code hook route may read a project's files to find its scope, for callers on this machine only (repeatable; env LEXSONA_HOOK_ROOTS, comma-separated); without it the route reads no files and takes the scope from the hook URL's query and the event's cwd")
	f.StringVar(&hookNotes, "hook-notes", cmp.Or(a.cfg.HookNotes, hooks.NotesSession),
		"what the Claude Code hook route tells the agent about corrections waiting for review: session (one line at session start), off, or ask (also a note mid-task for each possible correction) (env LEXSONA_HOOK_NOTES)")
	f.StringSliceVar(&shares, "share-registry", slices.Clone(a.cfg.ShareRegistries),
		"give tenants a read-only copy of another tenant's registry: OWNER/NAME=TENANT[+TENANT…], like default/team=alice+bob (repeatable; env LEXSONA_SHARE_REGISTRY, comma-separated)")
	f.BoolVar(&metricsNeedKey, "metrics-need-key", false, "require an API key for /metrics too (always, and a default tenant's key, when keys name tenants)")
	f.BoolVar(&noBatching, "no-batching", false, "embed every request on its own instead of coalescing them")
	f.IntVar(&maxBatch, "max-batch", 32, "most texts per coalesced model call")
	f.DurationVar(&maxWait, "max-wait", 2*time.Millisecond, "longest a request waits for others to share its model call")
	f.IntVar(&queueSize, "queue-size", 1024, "embedding requests queued before answering 429")
	f.Int64Var(&bodyLimit, "body-limit", 1<<20, "largest request body in bytes (413 beyond)")
	addIdempotencyTTLFlag(c, &idemTTL)
	integ.register(c)
	return c
}

// serveAPIKeys returns the API keys of `lexsona serve`: from --api-keys-file
// (or LEXSONA_API_KEYS_FILE), else from LEXSONA_API_KEYS or --api-keys.
// Keys given both ways are a usage error, as are malformed ones, a file
// others may read, and keys on the command line (onCommandLine: every local
// user sees them in ps) unless insecure (--insecure-keys-on-command-line),
// which still logs a warning.
func serveAPIKeys(a *app, onCommandLine, insecure bool, list, file string) (server.APIKeys, error) {
	if file != "" {
		if list != "" {
			return server.APIKeys{}, usagef("API keys are given both in a file (--api-keys-file or LEXSONA_API_KEYS_FILE) and as a list (--api-keys or LEXSONA_API_KEYS): give them one way")
		}
		keys, err := server.LoadAPIKeysFile(file)
		if err != nil {
			return keys, usageError{err}
		}
		return keys, nil
	}
	if onCommandLine && list != "" && !insecure {
		return server.APIKeys{}, usagef("%s", server.APIKeysOnCommandLineRefusal)
	}
	keys, err := server.ParseAPIKeys(list)
	if err != nil {
		return keys, usageError{err}
	}
	if onCommandLine && !keys.Empty() {
		a.logger().Warn(server.APIKeysOnCommandLineWarning)
	}
	return keys, nil
}

// parseShares reads the --share-registry values. Errors: usage errors
// naming the value.
func parseShares(vals []string) ([]server.RegistryShare, error) {
	var out []server.RegistryShare
	for _, v := range vals {
		if strings.TrimSpace(v) == "" {
			continue
		}
		sh, err := server.ParseRegistryShare(v)
		if err != nil {
			return nil, usagef("--share-registry: %s", engine.ErrorMessage(err))
		}
		out = append(out, sh)
	}
	return out, nil
}

// addIdempotencyTTLFlag adds --idempotency-ttl (serve and mcp), defaulting
// to server.DefaultIdempotencyTTL; newRoot makes LEXSONA_IDEMPOTENCY_TTL
// its default when set (setFlagDefault).
func addIdempotencyTTLFlag(c *cobra.Command, v *string) {
	c.Flags().StringVar(v, "idempotency-ttl", server.DefaultIdempotencyTTL.String(),
		"how long an idempotency key is remembered; older keys are deleted hourly (\"never\": kept forever; env LEXSONA_IDEMPOTENCY_TTL)")
}

// parseIdempotencyTTL reads --idempotency-ttl: a Go duration of at least a
// minute, or "never" (keys kept forever: server.Config's negative TTL).
func parseIdempotencyTTL(s string) (time.Duration, error) {
	if s == "never" {
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Minute {
		return 0, usagef("--idempotency-ttl %q: want a duration of at least 1m (like 24h or 168h) or \"never\"", s)
	}
	return d, nil
}

// integrityFlags are --skip-integrity-check and --integrity-timeout (serve
// and mcp), which govern the check of the database file at start.
type integrityFlags struct {
	skip    bool
	timeout time.Duration
}

func (f *integrityFlags) register(c *cobra.Command) {
	c.Flags().BoolVar(&f.skip, "skip-integrity-check", false, "start without checking the database file's pages (PRAGMA quick_check)")
	c.Flags().DurationVar(&f.timeout, "integrity-timeout", memory.DefaultIntegrityTimeout,
		"longest the start-up check of the database file may take; past it the check is abandoned with a warning")
}

// openServing checks the database file (integ.check) and assembles the
// core a long-running front end serves (openCore), with the composition
// root's configuration its tenants are opened with.
func (a *app) openServing(ctx context.Context, integ *integrityFlags) (*core, setup.Config, error) {
	if err := integ.check(ctx, a); err != nil {
		return nil, setup.Config{}, err
	}
	core, err := a.openCore(ctx)
	return core, a.setupConfig(), err
}

// check opens the database and runs PRAGMA quick_check on it, bounded by
// --integrity-timeout, unless --skip-integrity-check: a damaged file is
// refused (EUNAVAILABLE saying so); a check that ran out of time is logged
// and the start goes on.
func (f *integrityFlags) check(ctx context.Context, a *app) error {
	if f.timeout <= 0 {
		return usagef("--integrity-timeout must be positive, got %s", f.timeout)
	}
	mem, err := a.openMemory(ctx)
	if err != nil || f.skip {
		return err
	}
	finished, err := mem.QuickCheck(ctx, f.timeout)
	if err != nil {
		if memory.Damaged(err) {
			return engine.Errorf(engine.EUNAVAILABLE, "%s; to start anyway, pass --skip-integrity-check", engine.ErrorMessage(err))
		}
		return err
	}
	if !finished {
		a.logger().Warn("the database integrity check did not finish in time and was abandoned; raise --integrity-timeout to complete it",
			"timeout", f.timeout.String())
	}
	return nil
}
