package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newMigrateCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the database schema",
		RunE: func(cmd *cobra.Command, _ []string) error {
			mem, err := a.openMemory(cmd.Context()) // opening applies pending migrations
			if err != nil {
				return err
			}
			v, err := mem.SchemaVersion(cmd.Context())
			if err != nil {
				return err
			}
			out := map[string]any{"db": mem.Location(), "schema_version": v}
			return a.output(out, func(w io.Writer) {
				fmt.Fprintf(w, "%s: schema version %d\n", mem.Location(), v)
			})
		},
	}
}
