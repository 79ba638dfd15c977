package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/internal/tenant"
)

func newExportCmd(a *app) *cobra.Command {
	var out, tenantName string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write everything the memory holds as versioned JSON Lines",
		Long: `Write everything the memory in --db holds — rules with their evidence and
texts, every event, config overrides, the registries in force, pending
confirmations — to stdout (or --out FILE) as JSON Lines, read in one
consistent state. Vectors are not written: the store that imports the file
computes them again. ` + "`lexsona import`" + ` loads the file into another store, for
example a personal SQLite memory into a team's PostgreSQL one:

  lexsona export --db ~/.local/share/lexsona/lexsona.db > memory.jsonl
  lexsona import memory.jsonl --db postgres://lexsona@db.example:5432/team

With --tenant NAME it exports that tenant's memory (one that exists: a
misspelt name is refused, nothing is created).`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if setup.DriverName(a.dbPath) == "sqlite" && (tenantName == "" || tenantName == tenant.Default) {
				// Opening would create an empty memory, and export it.
				if _, err := os.Stat(a.dbPath); errors.Is(err, fs.ErrNotExist) {
					return engine.Errorf(engine.ENOTFOUND, "no LexSona database at %s: nothing to export (check --db or LEXSONA_DB)", a.dbPath)
				}
			}
			mem, err := a.openTenantMemory(cmd.Context(), tenantName, false)
			if err != nil {
				return err
			}
			w, closeOut := io.Writer(a.stdout), func() error { return nil }
			if out != "" && out != "-" {
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				if err != nil {
					return engine.Errorf(engine.EINVALID, "cannot write %s: %v", out, err)
				}
				w, closeOut = f, f.Close
			}
			n, err := mem.Export(cmd.Context(), w)
			if cerr := closeOut(); err == nil && cerr != nil {
				err = fmt.Errorf("write %s: %w", out, cerr)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "exported %d rules, %d texts, %d events, %d config overrides, %d registries, %d confirmations from %s\n",
				n.Rules, n.Texts, n.Events, n.Config, n.Registries, n.Pending, mem.Location())
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file (mode 0600) instead of stdout")
	a.addTenantFlag(cmd, &tenantName, "export")
	return cmd
}
