package tenant

import (
	"context"
	"slices"

	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

// Share gives tenants a read-only copy of another tenant's registry:
// whenever Owner syncs its registry Name through a front end (ShareSynced),
// when a receiver's memory is opened, and when a running server finds the
// owner's copy changed otherwise (FollowShares), the same YAML is synced
// into every tenant of To as the source Name, which those tenants may not
// sync themselves. Their own evidence on its rules stays theirs.
type Share struct {
	Owner string
	Name  string
	To    []string
}

// Receives reports whether tenant name receives the registry regName from
// another tenant.
func (m *Memories) Receives(name, regName string) bool {
	for _, sh := range m.cfg.Shares {
		if sh.Name == regName && slices.Contains(sh.To, name) {
			return true
		}
	}
	return false
}

// receiveShared syncs into mem, tenant name's memory, every registry shared
// with it, as its owner has it now (a registry its owner never synced is
// skipped). Errors: those of opening the owner and of the sync.
func (m *Memories) receiveShared(ctx context.Context, name string, mem *memory.Service) error {
	for _, sh := range m.cfg.Shares {
		if slices.Contains(sh.To, name) {
			if err := m.pullShare(ctx, sh, mem); err != nil {
				return err
			}
		}
	}
	return nil
}

// pullShare syncs sh's registry, as its owner holds it, into mem.
func (m *Memories) pullShare(ctx context.Context, sh Share, mem *memory.Service) error {
	owner, err := m.Get(ctx, sh.Owner)
	if err != nil {
		return err
	}
	yaml, ok, err := owner.RegistryYAML(ctx, sh.Name)
	if err != nil || !ok {
		return err
	}
	return syncShare(ctx, sh, mem, yaml)
}

// syncShare syncs yaml, the owner's copy of sh's registry, into mem.
func syncShare(ctx context.Context, sh Share, mem *memory.Service, yaml []byte) error {
	_, _, err := mem.SyncRegistry(ctx, registry.Source{Name: sh.Name, YAML: yaml}, memory.SyncOptions{AllowEmpty: true})
	return err
}

// ShareSynced passes the registry regName, which tenant owner just synced,
// on to the tenants it is shared with; a receiver that fails is logged (it
// gets the registry when it is next opened or synced).
func (m *Memories) ShareSynced(ctx context.Context, owner, regName string) {
	for _, sh := range m.cfg.Shares {
		if sh.Owner != owner || sh.Name != regName {
			continue
		}
		for _, r := range sh.To {
			mem, err := m.Get(ctx, r)
			if err == nil {
				err = m.pullShare(ctx, sh, mem)
			}
			if err != nil {
				m.log.Error("passing a shared registry on failed", "registry", regName, "tenant", r, "err", err.Error())
			}
		}
	}
}
