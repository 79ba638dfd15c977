package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagUsageNamesNoPlaceholderByAccident walks every command's flags:
// pflag takes the first `backquoted` word of a usage text as the flag's
// value placeholder, so a usage that quotes a command (`lexsona serve`)
// would print "--tenant lexsona serve" in --help. A placeholder is one word.
func TestFlagUsageNamesNoPlaceholderByAccident(t *testing.T) {
	root := newRoot(&app{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if strings.ContainsAny(name, " \t") {
				t.Errorf("%s --%s: help shows the placeholder %q, taken from a backquoted part of its usage %q",
					c.CommandPath(), f.Name, name, f.Usage)
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
