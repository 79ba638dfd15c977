package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

func newRegistryCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "registry", Short: "The YAML rule registries and their embedding precompute job"}
	var allowEmpty, dryRun bool
	sync := &cobra.Command{
		Use:   "sync [--registry FILE] [--allow-empty] [--dry-run]",
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
refused unless --allow-empty is given.

With --dry-run (and --registry FILE) nothing is written: it prints the rule
ids the sync would add, update, archive and keep, decided by the sync
itself in a transaction that is rolled back.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dryRun {
				return a.planRegistry(cmd.Context(), allowEmpty)
			}
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
	sync.Flags().BoolVar(&dryRun, "dry-run", false, "print what syncing --registry FILE would add, update, archive and keep; write nothing")
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

// planRegistry prints memory.Service.PlanRegistry of --registry FILE: what
// its sync would do. It loads no embedder and writes nothing.
func (a *app) planRegistry(ctx context.Context, allowEmpty bool) error {
	if a.registry == "" {
		return usagef("--dry-run needs --registry FILE: the registry whose sync to preview")
	}
	data, err := setup.ReadRegistryFile(a.registry)
	if err != nil {
		return err
	}
	mem, err := a.openMemory(ctx)
	if err != nil {
		return err
	}
	_, plan, err := mem.PlanRegistry(ctx, registry.Source{File: a.registry, YAML: data}, memory.SyncOptions{AllowEmpty: allowEmpty})
	if err != nil {
		return err
	}
	return a.output(plan, func(w io.Writer) {
		fmt.Fprintf(w, "syncing %s would add %d, update %d, archive %d and keep %d rules, and leave %d unchanged (dry run: nothing written)\n",
			plan.Registry, len(plan.Added), len(plan.Updated), len(plan.Archived), len(plan.Kept), len(plan.Unchanged))
		for _, l := range []struct {
			what string
			ids  []string
		}{{"add", plan.Added}, {"update", plan.Updated}, {"archive", plan.Archived}, {"keep", plan.Kept}, {"same", plan.Unchanged}} {
			for _, id := range l.ids {
				fmt.Fprintf(w, "  %-8s %s\n", l.what, id)
			}
		}
		if plan.DefaultFirst {
			fmt.Fprintln(w, "no registry is in force yet: the default pack would be synced first")
		}
	})
}
