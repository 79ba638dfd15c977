// Package tenant holds what LexSona's front ends (the HTTP server, MCP)
// know of tenants: their names, the API keys that name them (Keys), every
// tenant's memory looked up by name and opened on first use (Memories),
// the registries they share, and the pruning of their idempotency keys.
// It opens the stores of a shared server's tenants too, each where the
// default store's driver keeps it (store.Tenants: a SQLite file
// tenants/<name>.db beside the --db file, a PostgreSQL schema
// <prefix>_t_<name> with a role of its own); it imports no driver. Every
// tenant's memory is a store of its own, so that a query cannot reach
// another tenant's rules whatever it filters on.
package tenant

import (
	"regexp"

	"github.com/lexsona/lexsona/engine"
)

// Default is the name of the implicit tenant: the one of API keys that name
// no tenant, and the only one of a server without keys. Its store is the
// --db store itself.
const Default = "default"

// MaxNameLength is the longest tenant name (a PostgreSQL identifier holds
// 63 bytes, the schema prefix included).
const MaxNameLength = 30

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// CheckName validates a tenant name: 1 to MaxNameLength characters of
// lower-case ASCII letters, digits and _, starting with a letter, and not
// "read" or "write" (which would read as an API key's access). Errors:
// EINVALID naming what is wrong.
func CheckName(name string) error {
	switch {
	case name == "":
		return engine.Errorf(engine.EINVALID, "the tenant name is empty")
	case len(name) > MaxNameLength:
		return engine.Errorf(engine.EINVALID, "tenant name %q is %d characters long: at most %d", name, len(name), MaxNameLength)
	case !nameRE.MatchString(name):
		return engine.Errorf(engine.EINVALID, "tenant name %q: use lower-case letters, digits and _, starting with a letter", name)
	case name == "read" || name == "write":
		return engine.Errorf(engine.EINVALID, "tenant name %q is reserved: it reads as an API key's access", name)
	}
	return nil
}
