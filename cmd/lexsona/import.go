package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
)

func newImportCmd(a *app) *cobra.Command {
	var (
		tenantName string
		merge      bool
	)
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Load an export (lexsona export) into the memory",
		Long: `Load a file written by ` + "`lexsona export`" + ` (FILE, or - for stdin) into the
memory in --db, empty or not. What the memory already has is kept as it is:
a rule with the same id (with its events), a config key, a registry name, an
identical pending confirmation; everything else is added. For each rule it
already had, the import says how many of the file's events it has and how
many it left out; with --merge it appends those it lacks (corrections, the
one that created the file's copy of a candidate among them, confirmations and
violations, by content; not those the file retracts) and recomputes the rule's
alpha and beta from them. Importing the same file twice changes nothing. The
whole file is checked before anything is written, as every other input is
checked, and every rule's history is replayed from its prior as lexsona
records it: a file from a newer lexsona, a truncated one, or one with a bad
record (control characters, a registry that does not parse, a time in the
future, alpha, beta, counts, times, a statement or a status its events do not
explain…) is refused naming its line, and changes nothing: it does not even
create the database or tenant store it was to go into. The file is streamed:
memory does not grow with its events.
Secrets in correction texts and agent output are replaced by placeholders. The imported texts are then embedded with the
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
			// The whole file is checked before the store is opened, so that
			// a refused file creates no database (nor tenant store).
			checked, err := memory.CheckExport(r, time.Now())
			if err != nil {
				return err
			}
			defer checked.Close()
			mem, err := a.openTenantMemory(cmd.Context(), tenantName, true)
			if err != nil {
				return err
			}
			res, err := mem.ImportChecked(cmd.Context(), checked, memory.ImportOptions{Merge: merge})
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
					mem.Location(), add.Rules, add.Texts, add.Events, add.Config, add.Registries, add.Pending)
				fmt.Fprintf(w, "kept what it had: %d rules, %d config overrides, %d registries, %d confirmations\n",
					keep.Rules, keep.Config, keep.Registries, keep.Pending)
				printRulesKept(w, res.Rules)
				if res.Redacted > 0 {
					fmt.Fprintf(w, "replaced %d secrets by placeholders\n", res.Redacted)
				}
			})
		},
	}
	cmd.Flags().BoolVar(&merge, "merge", false, "append to the rules the memory already has the file's corrections they lack, and recompute their alpha and beta")
	a.addTenantFlag(cmd, &tenantName, "import into")
	return cmd
}

// printRulesKept says what became of the file's events of each rule the
// memory already had: one line per rule that lacked some of the file's
// corrections (appended with --merge, else left out), one line for the
// others.
func printRulesKept(w io.Writer, rules []memory.RuleImport) {
	same := 0
	for _, r := range rules {
		switch {
		case r.Outcome == memory.RuleMerged:
			fmt.Fprintf(w, "rule %s: merged %d of the file's %d events (%d already here", r.RuleID, r.Merged, r.FileEvents, r.Present)
			if r.NotImported > 0 {
				fmt.Fprintf(w, "; %d were the file copy's own creation, promotion or edits, left out", r.NotImported)
			}
			fmt.Fprintf(w, "): now %d events, alpha %g, beta %g\n", r.Events, r.Alpha, r.Beta)
		case r.Lacking > 0:
			fmt.Fprintf(w, "rule %s: kept as this memory has it (%d events, alpha %g, beta %g); %d of the file's %d events are not in it and were not imported, %d of them corrections that --merge appends\n",
				r.RuleID, r.Events, r.Alpha, r.Beta, r.NotImported, r.FileEvents, r.Lacking)
		default:
			same++
		}
	}
	if same > 0 {
		fmt.Fprintf(w, "%d rules kept as this memory has them: the file holds no correction they lack\n", same)
	}
}
