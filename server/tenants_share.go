package server

import (
	"context"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/registry"
)

// RegistryShare gives tenants a read-only copy of another tenant's
// registry: whenever Owner syncs its registry Name through the server, when
// a receiver's memory is opened, and when a running server finds the
// owner's copy changed otherwise (startShareFollower), the same YAML is
// synced into every tenant of To as the
// source Name, which those tenants may not sync themselves (403). Their
// own evidence on its rules stays theirs.
type RegistryShare struct {
	Owner string
	Name  string
	To    []string
}

// ParseRegistryShare parses a --share-registry value
// "OWNER/NAME=TENANT[+TENANT…]" ("default/team=alice+bob": the default
// tenant's registry team, read-only for alice and bob). Errors: EINVALID
// naming what is wrong.
func ParseRegistryShare(s string) (RegistryShare, error) {
	src, to, ok := strings.Cut(strings.TrimSpace(s), "=")
	owner, name, ok2 := strings.Cut(src, "/")
	if !ok || !ok2 || name == "" || to == "" {
		return RegistryShare{}, engine.Errorf(engine.EINVALID, "registry share %q: want OWNER/NAME=TENANT[+TENANT…], like default/team=alice+bob", clip(s))
	}
	sh := RegistryShare{Owner: owner, Name: name, To: strings.Split(to, "+")}
	return sh, checkShares([]RegistryShare{sh})
}

// checkShareKeys refuses a share whose owner or receiver (other than the
// default tenant) has no API key: such a tenant's memory is out of every
// request's reach, and the name is most likely misspelt. Errors: EINVALID
// naming the share and the tenant.
func checkShareKeys(shares []RegistryShare, keys APIKeys) error {
	for _, sh := range shares {
		for _, name := range append([]string{sh.Owner}, sh.To...) {
			if _, ok := keys.Tenants[name]; !ok && name != tenant.Default {
				return engine.Errorf(engine.EINVALID,
					"registry share %s/%s: tenant %s has no API key (a TENANT:write:KEY line of --api-keys-file): add one or correct the name", sh.Owner, sh.Name, name)
			}
		}
	}
	return nil
}

// checkShares validates shares: tenant names, a registry name, no tenant
// receiving its own registry, and no tenant that shares a registry
// receiving one (so that opening a receiver never waits on another
// receiver). Errors: EINVALID naming the share.
func checkShares(shares []RegistryShare) error {
	owners := map[string]bool{}
	for _, sh := range shares {
		owners[sh.Owner] = true
	}
	for _, sh := range shares {
		what := sh.Owner + "/" + sh.Name
		if sh.Owner != tenant.Default {
			if err := tenant.CheckName(sh.Owner); err != nil {
				return engine.Errorf(engine.EINVALID, "registry share %s: %s", what, engine.ErrorMessage(err))
			}
		}
		if sh.Name == "" || len(sh.Name) > 128 || strings.ContainsAny(sh.Name, "/=+, \t\n") {
			return engine.Errorf(engine.EINVALID, "registry share %s: %q is not a registry name", what, clip(sh.Name))
		}
		if len(sh.To) == 0 {
			return engine.Errorf(engine.EINVALID, "registry share %s: no tenant receives it", what)
		}
		for _, r := range sh.To {
			if r == sh.Owner {
				return engine.Errorf(engine.EINVALID, "registry share %s: tenant %s owns it and cannot receive it", what, r)
			}
			if err := tenant.CheckName(r); err != nil || r == tenant.Default {
				return engine.Errorf(engine.EINVALID, "registry share %s: receiver %q: a named tenant is wanted", what, clip(r))
			}
			if owners[r] {
				return engine.Errorf(engine.EINVALID, "registry share %s: tenant %s shares a registry itself and cannot also receive one", what, r)
			}
		}
	}
	return nil
}

// receives reports whether tenant name receives the registry regName from
// another tenant.
func (s *Server) receives(name, regName string) bool {
	for _, sh := range s.cfg.SharedRegistries {
		if sh.Name == regName && slices.Contains(sh.To, name) {
			return true
		}
	}
	return false
}

// receiveShared syncs into t every registry shared with it, as its owner
// has it now (a registry its owner never synced is skipped). Errors: those
// of opening the owner and of the sync.
func (s *Server) receiveShared(ctx context.Context, t *tenantMem) error {
	for _, sh := range s.cfg.SharedRegistries {
		if slices.Contains(sh.To, t.name) {
			if err := s.pullShare(ctx, sh, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// pullShare syncs sh's registry, as its owner holds it, into t.
func (s *Server) pullShare(ctx context.Context, sh RegistryShare, t *tenantMem) error {
	owner, err := s.tenantByName(ctx, sh.Owner)
	if err != nil {
		return err
	}
	yaml, ok, err := registryYAML(ctx, owner.db, sh.Name)
	if err != nil || !ok {
		return err
	}
	return syncShare(ctx, sh, t, yaml)
}

// syncShare syncs yaml, the owner's copy of sh's registry, into t.
func syncShare(ctx context.Context, sh RegistryShare, t *tenantMem, yaml []byte) error {
	_, _, err := t.mem.SyncRegistry(ctx, registry.Source{Name: sh.Name, YAML: yaml}, memory.SyncOptions{AllowEmpty: true})
	return err
}

// shareSynced passes a registry owner just synced on to the tenants it is
// shared with; a receiver that fails is logged (it gets the registry when
// it is next opened or synced).
func (s *Server) shareSynced(ctx context.Context, owner *tenantMem, regName string) {
	for _, sh := range s.cfg.SharedRegistries {
		if sh.Owner != owner.name || sh.Name != regName {
			continue
		}
		for _, r := range sh.To {
			t, err := s.tenantByName(ctx, r)
			if err == nil {
				err = s.pullShare(ctx, sh, t)
			}
			if err != nil {
				s.log.Error("passing a shared registry on failed", "registry", regName, "tenant", r, "err", err.Error())
			}
		}
	}
}

// refuseReceived answers 403 when the request's tenant syncs a registry it
// receives from another tenant.
func (s *Server) refuseReceived(c echo.Context, src registry.Source) error {
	name := src.Name
	if name == "" {
		reg, err := registry.ParseWith(src.YAML, registry.ParseOptions{AllowEmpty: true})
		if err != nil {
			return nil // the sync reports the problems
		}
		name = reg.Name()
	}
	if s.receives(tenantName(c), name) {
		return &apiError{codeForbidden, "registry " + clip(name) + " is shared with this tenant read-only: only the tenant that owns it may sync it"}
	}
	return nil
}

// refuseReceivedRule answers 403 when the request's tenant edits a rule of
// a registry it receives from another tenant (its owner's next sync would
// undo the edit). Any other outcome of the lookup is left to the edit, so
// that an unknown id answers as it always does.
func (s *Server) refuseReceivedRule(c echo.Context, mem *memory.Service, id string) error {
	if len(s.cfg.SharedRegistries) == 0 {
		return nil
	}
	v, err := mem.GetRule(c.Request().Context(), id, s.cfg.Now())
	if err == nil && v.Registry != "" && s.receives(tenantName(c), v.Registry) {
		return &apiError{codeForbidden, "rule " + id + " belongs to registry " + v.Registry + ", shared with this tenant read-only: only the tenant that owns it may change it"}
	}
	return nil
}
