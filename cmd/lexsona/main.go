// Command lexsona is the LexSona CLI and service: it records corrections to an
// AI coding agent as scoped rules with a Bayesian confidence, and prints the
// persona snapshot to inject into the agent's prompt.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
