package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/lexsona/lexsona/hooks/spool"
	"github.com/lexsona/lexsona/memory"
)

// serveDrainEvery is how often `lexsona serve` looks at its spool for
// prompts the hooks captured while no drainer could deliver them.
const serveDrainEvery = 5 * time.Second

// drainSpoolWhileServing delivers, until ctx ends, what waits on this
// configuration's spool (a.spoolDir()): at once, then every serveDrainEvery.
// Items for this database and items naming the service at addr are taken
// in-process by mem; items naming another service are posted to it. A
// drain a hook started elsewhere holds the spool's lock, so the two never
// deliver the same item at once; an item delivered twice is still recorded
// once, under its idempotency key.
func (a *app) drainSpoolWhileServing(ctx context.Context, mem *memory.Service, addr string, log *slog.Logger) {
	sp, err := spool.Open(a.spoolDir())
	if err != nil {
		log.Warn("the hooks' spool cannot be opened; prompts it holds wait for the hooks' own drainer", "spool", a.spoolDir(), "err", err)
		return
	}
	r := receiver{db: a.dbPath, apiKey: a.cfg.APIKey, own: servesAt(addr),
		local: func(context.Context) (*memory.Service, error) { return mem, nil }}
	tick := time.NewTicker(serveDrainEvery)
	defer tick.Stop()
	for {
		if d, err := sp.Depth(); err == nil && d > 0 {
			n, err := sp.Drain(ctx, r.deliver)
			if n > 0 {
				log.Info("delivered spooled hook items", "count", n, "spool", sp.Dir())
			}
			if err != nil && !errors.Is(err, errOtherDB) && ctx.Err() == nil {
				log.Warn("spooled hook items wait for the next drain", "spool", sp.Dir(), "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// servesAt says whether a hook's --server URL names the service listening
// on addr: the same port, on a loopback or the listen address's own host.
func servesAt(addr string) func(string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return func(string) bool { return false }
	}
	return func(server string) bool {
		u, err := url.Parse(server)
		if err != nil || u.Port() != port {
			return false
		}
		h := u.Hostname()
		if h == host || h == "localhost" {
			return true
		}
		ip := net.ParseIP(h)
		return ip != nil && (ip.IsLoopback() || (host != "" && ip.Equal(net.ParseIP(host))) || ip.IsUnspecified())
	}
}
