package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/registry"
)

func newRegistryCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "registry", Short: "The YAML rule registries and their embedding precompute job"}
	var allowEmpty bool
	sync := &cobra.Command{
		Use:   "sync [--registry FILE] [--allow-empty]",
		Short: "Upsert a registry's rules and embed every text not embedded yet for the current model",
		Long: `Each registry is a source of rules of its own, named by its top-level
name: (else the file's base name); the default pack is the source "default".
With --registry FILE, upserts that registry's rule definitions into the store
in one transaction (a definition change never resets evidence; a rule removed
from the file is archived, not deleted) without touching the rules of any
other source, then embeds every template and example that has no vector for
the current model yet, in batches. Interrupted, it resumes where it stopped.
Without --registry it readies the registries in force (the default pack into
an empty store).

A registry without rules would archive every rule of its source: it is
refused unless --allow-empty is given.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := a.setupConfig()
			cfg.AllowEmpty = allowEmpty
			core, err := a.assemble(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			return a.output(core.Sync, func(w io.Writer) {
				s := core.Sync
				fmt.Fprintf(w, "%s: %d rules (%d added, %d updated, %d archived, %d left to your own rules of the same id); %d texts embedded, %d already embedded; %s %s\n",
					core.Registry.Name(), core.Registry.Len(), s.Added, s.Updated, s.Archived, s.Kept, s.Embedded, s.Skipped, s.Embedder, s.Model)
			})
		},
	}
	sync.Flags().BoolVar(&allowEmpty, "allow-empty", false, "sync a registry without rules, archiving every rule of its source")
	show := &cobra.Command{
		Use:   "default",
		Short: "Print the default rule pack (YAML), a starting point for your own registry",
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := a.stdout.Write(registry.DefaultYAML())
			return err
		},
	}
	c.AddCommand(sync, show)
	return c
}
