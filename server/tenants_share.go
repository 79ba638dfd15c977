package server

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/server/internal/readonly"
)

// RegistryShare gives tenants a read-only copy of another tenant's
// registry (tenant.Share): whenever Owner syncs its registry Name through
// the server, when a receiver's memory is opened, and when a running server
// finds the owner's copy changed otherwise, the same YAML is synced into
// every tenant of To as the source Name, which those tenants may not sync
// themselves (403). Their own evidence on its rules stays theirs.
type RegistryShare = tenant.Share

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

// refuseReceived answers 403 when the request's tenant syncs a registry it
// receives from another tenant.
func (s *Server) refuseReceived(c echo.Context, src registry.Source) error {
	if msg := readonly.Sync(src, s.receives(c)); msg != "" {
		return &apiError{codeForbidden, msg}
	}
	return nil
}

// receives reports whether the request's tenant receives a registry
// read-only.
func (s *Server) receives(c echo.Context) readonly.Receives {
	return func(name string) bool { return s.mems.Receives(tenantName(c), name) }
}

// refuseReceivedRule answers 403 when the request's tenant edits a rule of
// a registry it receives from another tenant (its owner's next sync would
// undo the edit). Any other outcome of the lookup is left to the edit, so
// that an unknown id answers as it always does.
func (s *Server) refuseReceivedRule(c echo.Context, mem Rules, id string) error {
	if len(s.cfg.SharedRegistries) == 0 {
		return nil
	}
	v, err := mem.GetRule(c.Request().Context(), id, s.cfg.Now())
	if err != nil {
		return nil
	}
	if msg := readonly.Rule(v, s.receives(c)); msg != "" {
		return &apiError{codeForbidden, msg}
	}
	return nil
}
