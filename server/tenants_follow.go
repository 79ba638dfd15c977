package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"slices"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// DefaultShareCheckInterval is how often a running server compares each
// shared registry, as its owner holds it, with every open receiver's copy
// (Config.ShareCheckInterval).
const DefaultShareCheckInterval = 10 * time.Second

// startShareFollower passes on, every Config.ShareCheckInterval, the
// shared registries whose owner's copy changed without this server
// syncing it: by `lexsona registry sync` on the store, or through another
// instance that does not serve the receiver. A receiver opened later gets
// the registry when it is opened, so only open receivers are compared. A
// receiver that refuses a version of the registry (a conflicting rule id,
// say) is logged once and not tried again until the owner's copy changes;
// other failures are retried at the next tick. Without shares it starts
// nothing; stop waits for a pass in progress.
func (s *Server) startShareFollower() (stop func()) {
	if len(s.cfg.SharedRegistries) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(s.cfg.ShareCheckInterval)
		defer tick.Stop()
		refused := shareRefusals{}
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				s.followSharesOnce(ctx, refused)
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
func (s *Server) followSharesOnce(ctx context.Context, refused shareRefusals) {
	for _, sh := range s.cfg.SharedRegistries {
		owner, err := s.tenantByName(ctx, sh.Owner)
		if err != nil {
			s.log.Warn("following a shared registry: its owner's memory cannot be opened; retrying at the next interval", "registry", sh.Name, "owner", sh.Owner, "err", err.Error())
			continue
		}
		want, ok, err := registryYAML(ctx, owner.db, sh.Name)
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				s.log.Warn("following a shared registry: reading it failed; retrying at the next interval", "registry", sh.Name, "owner", sh.Owner, "err", err.Error())
			}
			continue
		}
		sum := sha256.Sum256(want)
		for _, t := range s.openTenants() {
			key := [2]string{t.name, sh.Name}
			if !slices.Contains(sh.To, t.name) || refused[key] == sum {
				continue
			}
			have, _, err := registryYAML(ctx, t.db, sh.Name)
			if err == nil && bytes.Equal(have, want) {
				continue
			}
			if err == nil {
				err = syncShare(ctx, sh, t, want)
			}
			switch {
			case err == nil:
				delete(refused, key)
				s.log.Info("passed on a shared registry its owner changed outside this server", "registry", sh.Name, "owner", sh.Owner, "tenant", t.name)
			case ctx.Err() != nil:
			case engine.ErrorCode(err) == engine.EUNAVAILABLE || engine.ErrorCode(err) == engine.EINTERNAL:
				s.log.Warn("following a shared registry: passing it on failed; retrying at the next interval", "registry", sh.Name, "tenant", t.name, "err", err.Error())
			default:
				refused[key] = sum
				s.log.Error("following a shared registry: the tenant refuses this version of it; it is offered again when its owner changes it",
					"registry", sh.Name, "tenant", t.name, "err", err.Error())
			}
		}
	}
}

// registryYAML is the YAML of registry name as db holds it in force, and
// whether it holds one.
func registryYAML(ctx context.Context, db *store.DB, name string) ([]byte, bool, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(files, func(f store.RegistryFile) bool { return f.Name == name })
	if i < 0 {
		return nil, false, nil
	}
	return files[i].YAML, true, nil
}
