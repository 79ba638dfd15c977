package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

func newImportCmd(a *app) *cobra.Command {
	var tenantName string
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Load an export (lexsona export) into the memory",
		Long: `Load a file written by ` + "`lexsona export`" + ` (FILE, or - for stdin) into the
memory in --db, empty or not. What the memory already has is kept as it is:
a rule with the same id (with its events), a config key, a registry name, an
identical pending confirmation; everything else is added. Importing the same
file twice changes nothing. The whole file is checked before anything is
written: a file from a newer lexsona, a truncated or malformed one is
refused and changes nothing. The imported texts are then embedded with the
configured embedder (--embedder, --model-dir), so that servers running on the
same store match the imported rules; if that fails, the import stands and
the next registry sync (any command that classifies, or serve) embeds them.
With --tenant NAME it loads the file into that tenant's memory, creating
it as lexsona serve would.`,
		Args: exactArgs(1, "the export file (- for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r io.Reader = a.stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return engine.Errorf(engine.EINVALID, "cannot read %s: %v", args[0], err)
				}
				defer f.Close()
				r = f
			}
			db, err := a.openTenantDB(cmd.Context(), tenantName, true)
			if err != nil {
				return err
			}
			res, err := memory.New(db, nil, memory.Options{}).Import(cmd.Context(), r)
			if err != nil {
				return err
			}
			if res.Added.Texts > 0 {
				// Embed the new texts now, as a registry sync would, so that
				// servers already running on this store match the new rules.
				if _, err := a.openCore(cmd.Context()); err != nil {
					fmt.Fprintf(a.stderr, "lexsona: imported, but the new texts could not be embedded yet (%s): the next `lexsona registry sync` or serve embeds them\n",
						engine.ErrorMessage(err))
				}
			}
			return a.output(res, func(w io.Writer) {
				add, keep := res.Added, res.Kept
				fmt.Fprintf(w, "%s: added %d rules (%d texts, %d events), %d config overrides, %d registries, %d confirmations\n",
					db.Path(), add.Rules, add.Texts, add.Events, add.Config, add.Registries, add.Pending)
				fmt.Fprintf(w, "kept what it had: %d rules, %d config overrides, %d registries, %d confirmations\n",
					keep.Rules, keep.Config, keep.Registries, keep.Pending)
			})
		},
	}
	addTenantFlag(cmd, &tenantName, "import into")
	return cmd
}
