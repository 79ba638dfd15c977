package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/hooks/spool"
	"github.com/spf13/cobra"
)

// spoolDepth counts what waits on the spool in dir (0 when it does not
// exist yet).
func spoolDepth(dir string) (int, error) {
	sp, err := spool.Open(dir)
	if err != nil {
		return 0, err
	}
	return sp.Depth()
}

func newSpoolCmd(a *app) *cobra.Command {
	c := &cobra.Command{Use: "spool", Short: "What the command hooks captured and have not delivered yet"}
	var quiet, wait bool
	drain := &cobra.Command{
		Use:   "drain",
		Short: "Deliver what waits on the spool (the hooks start this themselves)",
		Long: `Delivers the spooled prompts and denied tool calls, oldest first, each
recorded once under its idempotency key: to the service an item names, else
to this configuration's memory (loading the model for prompts). One drain
runs at a time; a second returns at once. An item the receiver refuses as
invalid moves to the spool's failed/ folder; a transient failure leaves the
rest for the next drain and is shown by lexsona spool status and doctor.
Items of another database are left for that database's drainer.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sp, err := spool.Open(a.spoolDir())
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
			defer cancel()
			drain := sp.Drain
			if wait {
				drain = sp.DrainWait
			}
			n, err := drain(ctx, a.deliver)
			if errors.Is(err, errOtherDB) {
				err = nil
			}
			if quiet {
				return err
			}
			fmt.Fprintf(a.stdout, "delivered %d\n", n)
			return err
		},
	}
	drain.Flags().BoolVar(&quiet, "quiet", false, "print nothing")
	drain.Flags().BoolVar(&wait, "wait", false, "wait for a drain running elsewhere to end instead of returning at once")
	status := &cobra.Command{
		Use:   "status",
		Short: "How many items wait on the spool, how many were refused, and the last delivery error",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sp, err := spool.Open(a.spoolDir())
			if err != nil {
				return err
			}
			st := spoolState(sp)
			return a.output(st, func(w io.Writer) {
				fmt.Fprintf(w, "spool %s: %d waiting, %d refused (in failed/)\n", st.Dir, st.Waiting, st.Failed)
				if st.LastError != "" {
					fmt.Fprintf(w, "last delivery error: %s\n", st.LastError)
				}
			})
		},
	}
	c.AddCommand(drain, status)
	return c
}

// spoolStatus is what doctor and spool status say of the spool.
type spoolStatus struct {
	Dir       string `json:"dir"`
	Waiting   int    `json:"waiting"`
	Failed    int    `json:"failed"`
	LastError string `json:"last_error,omitempty"`
}

func spoolState(sp *spool.Spool) spoolStatus {
	n, _ := sp.Depth()
	return spoolStatus{Dir: sp.Dir(), Waiting: n, Failed: sp.Failed(), LastError: sp.LastError()}
}

// personaFrom asks the service at server for scope's persona, within a
// second. Errors: the request's, or a status other than 200.
func personaFrom(ctx context.Context, server, key string, scope engine.Scope) (engine.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	q := scopeValues(scope)
	q.Set("format", "json")
	var snap engine.Snapshot
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/v1/persona?"+q.Encode(), nil)
	if err != nil {
		return snap, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return snap, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return snap, fmt.Errorf("%s/v1/persona answered %s", server, resp.Status)
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&snap)
	return snap, err
}
