package store

import (
	"time"

	"github.com/lexsona/lexsona/engine"
)

// RuleRow is a stored rule with the columns engine.Rule does not carry.
type RuleRow struct {
	engine.Rule
	// ArchivedBy says who archived the rule: ArchivedByRegistry (it left
	// its registry; a sync that defines it again restores it),
	// ArchivedByUser, or "" when it is not archived.
	ArchivedBy string
	// DefinitionSHA256 fingerprints the registry definition last applied
	// ("" for a rule no registry defined).
	DefinitionSHA256 string
	// Registry names the registry that defines the rule ("" for the user's
	// rules and those learned from corrections).
	Registry string
}

// Who archived a rule (RuleRow.ArchivedBy).
const (
	ArchivedByRegistry = "registry"
	ArchivedByUser     = "user"
)

// RuleState is what a registry sync needs to know of a stored rule.
type RuleState struct {
	RuleID           string
	Status           engine.Status
	ArchivedBy       string
	Source           string
	Registry         string
	DefinitionSHA256 string
	Alpha, Beta      float64
}

// RuleQuery selects rules for Reader.Rules. Zero fields do not filter.
type RuleQuery struct {
	Category string
	Status   engine.Status
	Source   string
	// After keeps the ids after it.
	After string
	// Scope, when set, keeps the rules whose environment, project and agent
	// family are each a wildcard or equal to Scope's (tags are not looked at).
	Scope *engine.Scope
	// Limit caps the result (0: no cap).
	Limit int
}

// Versions are the store's change counters. Each grows whenever what it
// counts changes, by this process or another: Rules with every rule row
// written (which is stamped with the new value), Config with the config
// overrides, Embeddings with rule texts, vectors, and the status, id or
// scope of rules.
type Versions struct {
	Rules, Config, Embeddings int64
}

// ConfigRow is one stored config override.
type ConfigRow struct {
	Key, Value string
}

// IdempotencyRow is what an idempotency key stores: the fingerprint of the
// request it was first used with and the JSON response to replay.
type IdempotencyRow struct {
	RequestSHA256 string
	Response      []byte
}

// RegistryFile is a registry in force: the YAML last synced under a name.
type RegistryFile struct {
	Name     string    `json:"name"`
	YAML     []byte    `json:"yaml"`
	SHA256   string    `json:"sha256"`
	SyncedAt time.Time `json:"synced_at"`
}

// Stats counts the stored rows of each kind.
type Stats struct {
	Rules           int64 `json:"rules"`
	Events          int64 `json:"events"`
	Texts           int64 `json:"texts"`
	Embeddings      int64 `json:"embeddings"`
	IdempotencyKeys int64 `json:"idempotency_keys"`
	Pending         int64 `json:"pending"`
	Config          int64 `json:"config"`
}

// Migration is one schema migration: its number, its name and, once
// applied, when.
type Migration struct {
	Version   int       `json:"version"`
	Name      string    `json:"name"`
	AppliedAt time.Time `json:"applied_at,omitzero"`
}
