package main

import (
	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/mcp"
)

// newMCPCmd is lexsona mcp: LexSona's MCP server over stdio.
func newMCPCmd(a *app) *cobra.Command {
	var idemTTL, tenantName, apiKeysFile string
	var integ integrityFlags
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol over stdio (for Claude Code, Cursor and other MCP clients)",
		Long: `Serves the Model Context Protocol over stdio (newline-delimited JSON-RPC) with
the tools record_correction, classify_correction, get_persona, list_rules,
explain_rule, list_confirmations, resolve_confirmation, add_rule and
review_candidate, on the memory in --db, or with --tenant on that tenant's
memory as lexsona serve keeps it. A tenant with no memory yet is refused
unless the API keys (--api-keys-file, or LEXSONA_API_KEYS) name it: then its
memory is created at the first tool call (the log says so). Logs go to stderr.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.fullLog = true
			ttl, err := parseIdempotencyTTL(idemTTL)
			if err != nil {
				return err
			}
			if err := a.checkMCPTenant(cmd.Context(), tenantName, apiKeysFile); err != nil {
				return err
			}
			core, sc, err := a.openServing(cmd.Context(), &integ)
			if err != nil {
				return err
			}
			return mcp.Serve(cmd.Context(), mcp.Config{Memory: core.Front(), Embedder: core.Embedder, IdempotencyTTL: ttl, Logger: a.logger(),
				Tenant: tenantName, Tenants: setup.TenantMemories(sc), TenantEmbedder: setup.TenantEmbedder(sc)}, a.stdin, a.stdout)
		},
	}
	a.addTenantFlag(c, &tenantName, "serve")
	c.Flags().StringVar(&apiKeysFile, "api-keys-file", a.cfg.APIKeysFile,
		"the API keys file of lexsona serve: a --tenant it names may start with no memory yet (env LEXSONA_API_KEYS_FILE)")
	addIdempotencyTTLFlag(c, &idemTTL)
	integ.register(c)
	return c
}
