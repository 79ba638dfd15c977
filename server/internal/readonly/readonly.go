// Package readonly holds what the HTTP API and the review page refuse a
// tenant on a registry it receives read-only from another tenant: syncing
// it, and changing one of its rules (the owner's next sync would undo the
// change). Each function answers the refusal's message, "" when there is
// none; the caller answers it with 403.
package readonly

import (
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/server/internal/querycheck"
)

// Receives reports whether the tenant a request works for receives
// registry name read-only from another tenant.
type Receives func(name string) bool

// Sync is the refusal of syncing src: the registry it names, else the one
// its YAML names. An upload whose name cannot be read is not refused here:
// the sync reports its problems.
func Sync(src registry.Source, receives Receives) string {
	name := src.Name
	if name == "" {
		reg, err := registry.ParseWith(src.YAML, registry.ParseOptions{AllowEmpty: true})
		if err != nil {
			return ""
		}
		name = reg.Name()
	}
	if !receives(name) {
		return ""
	}
	return "registry " + querycheck.Clip(name) + " is shared with this tenant read-only: only the tenant that owns it may sync it"
}

// Rule is the refusal of changing rule v.
func Rule(v engine.RuleView, receives Receives) string {
	if v.Registry == "" || !receives(v.Registry) {
		return ""
	}
	return "rule " + v.RuleID + " belongs to registry " + v.Registry + ", shared with this tenant read-only: only the tenant that owns it may change it"
}
