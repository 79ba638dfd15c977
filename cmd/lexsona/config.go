package main

import (
	"fmt"
	"io"

	"github.com/lexsona/lexsona/engine"
	"github.com/spf13/cobra"
)

func newConfigCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Show or set the engine's hyperparameters"}
	show := &cobra.Command{
		Use:   "show",
		Short: "Show every hyperparameter (defaults with stored overrides)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			cfg, err := mem.Config(cmd.Context())
			if err != nil {
				return err
			}
			return a.printConfig(cfg)
		},
	}
	set := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Set one hyperparameter, e.g. `config set category.security_policy.n_min 12`",
		Args:  exactArgs(2, "a key and a value"),
		RunE: func(cmd *cobra.Command, args []string) error {
			mem, err := a.openMemory(cmd.Context())
			if err != nil {
				return err
			}
			cfg, err := mem.SetConfig(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return a.printConfig(cfg)
		},
	}
	c.AddCommand(show, set)
	return c
}

func (a *app) printConfig(cfg engine.Config) error {
	return a.output(cfg, func(w io.Writer) {
		for _, e := range cfg.Entries() {
			fmt.Fprintf(w, "%-40s %s\n", e.Key, e.Value)
		}
	})
}
