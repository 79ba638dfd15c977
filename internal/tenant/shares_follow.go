package tenant

import (
	"bytes"
	"context"
	"crypto/sha256"
	"slices"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// FollowShares passes on, every interval, the shared registries whose
// owner's copy changed without this process syncing it: by `lexsona
// registry sync` on the store, or through another instance that does not
// serve the receiver. A receiver opened later gets the registry when it is
// opened, so only open receivers are compared. A receiver that refuses a
// version of the registry (a conflicting rule id, say) is logged once and
// not tried again until the owner's copy changes; other failures are
// retried at the next tick. Without shares it starts nothing; stop waits
// for a pass in progress.
func (m *Memories) FollowShares(interval time.Duration) (stop func()) {
	if len(m.cfg.Shares) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		refused := shareRefusals{}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				m.followSharesOnce(ctx, refused)
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// shareRefusals remembers, per receiver and shared registry, the hash of
// the owner's YAML the receiver refused, so that it is not offered again.
type shareRefusals map[[2]string][sha256.Size]byte

// followSharesOnce syncs into each open receiver every shared registry
// whose YAML differs from its owner's, unless the receiver refused that
// very YAML before.
func (m *Memories) followSharesOnce(ctx context.Context, refused shareRefusals) {
	for _, sh := range m.cfg.Shares {
		owner, err := m.Get(ctx, sh.Owner)
		if err != nil {
			m.log.Warn("following a shared registry: its owner's memory cannot be opened; retrying at the next interval", "registry", sh.Name, "owner", sh.Owner, "err", err.Error())
			continue
		}
		want, ok, err := owner.RegistryYAML(ctx, sh.Name)
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				m.log.Warn("following a shared registry: reading it failed; retrying at the next interval", "registry", sh.Name, "owner", sh.Owner, "err", err.Error())
			}
			continue
		}
		sum := sha256.Sum256(want)
		for _, t := range m.Opened() {
			key := [2]string{t.Name, sh.Name}
			if !slices.Contains(sh.To, t.Name) || refused[key] == sum {
				continue
			}
			have, _, err := t.Memory.RegistryYAML(ctx, sh.Name)
			if err == nil && bytes.Equal(have, want) {
				continue
			}
			if err == nil {
				err = syncShare(ctx, sh, t.Memory, want)
			}
			switch {
			case err == nil:
				delete(refused, key)
				m.log.Info("passed on a shared registry its owner changed outside this server", "registry", sh.Name, "owner", sh.Owner, "tenant", t.Name)
			case ctx.Err() != nil:
			case engine.ErrorCode(err) == engine.EUNAVAILABLE || engine.ErrorCode(err) == engine.EINTERNAL:
				m.log.Warn("following a shared registry: passing it on failed; retrying at the next interval", "registry", sh.Name, "tenant", t.Name, "err", err.Error())
			default:
				refused[key] = sum
				m.log.Error("following a shared registry: the tenant refuses this version of it; it is offered again when its owner changes it",
					"registry", sh.Name, "tenant", t.Name, "err", err.Error())
			}
		}
	}
}
