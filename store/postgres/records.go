package postgres

import (
	"time"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// Config overrides, idempotency keys, the registries in force and row counts.

const (
	qConfigAll    = `SELECT key, value FROM persona_config ORDER BY key`
	qConfigUpsert = `INSERT INTO persona_config (key, value, updated_at) VALUES ($1, $2, $3)
	ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
	qConfigDelete = `DELETE FROM persona_config WHERE key = $1`
	qIdemGet      = `SELECT request_sha256, response FROM idempotency_keys WHERE key = $1`
	qIdemInsert   = `INSERT INTO idempotency_keys (key, request_sha256, response, created_at) VALUES ($1, $2, $3, $4)`
	qRegistries   = `SELECT name, yaml, sha256, synced_at FROM registry_source ORDER BY name`
	qRegistryPut  = `INSERT INTO registry_source (name, yaml, sha256, synced_at) VALUES ($1, $2, $3, $4)
	ON CONFLICT (name) DO UPDATE SET yaml = excluded.yaml, sha256 = excluded.sha256, synced_at = excluded.synced_at
	WHERE registry_source.sha256 <> excluded.sha256`
	qStats = `SELECT (SELECT count(*) FROM persona_rules), (SELECT count(*) FROM persona_events),
	(SELECT count(*) FROM rule_texts), (SELECT count(*) FROM persona_embeddings), (SELECT count(*) FROM idempotency_keys),
	(SELECT count(*) FROM pending_confirmations), (SELECT count(*) FROM persona_config)`
)

func (r runner) configRows() ([]store.ConfigRow, error) {
	return sqldriver.Collect(r.rows, "load config", qConfigAll, nil, sqldriver.ScanConfigRow)
}

func (r runner) PutConfig(key, value string, at time.Time) error {
	r.configChanged()
	return r.later("store config", qConfigUpsert, key, value, sqldriver.FormatTime(at))
}

func (r runner) DeleteConfig(key string) error {
	r.configChanged()
	return r.later("reset config", qConfigDelete, key)
}

// configChanged makes the rest of the write transaction read the config
// overrides from the database (see configCache).
func (r runner) configChanged() {
	if r.p != nil {
		r.p.configChanged = true
	}
}

func (r runner) IdempotencyKey(key string) (store.IdempotencyRow, bool, error) {
	var row store.IdempotencyRow
	var resp string
	found, err := r.row("look up idempotency key", qIdemGet, []any{key}, &row.RequestSHA256, &resp)
	if !found || err != nil {
		return store.IdempotencyRow{}, false, err
	}
	row.Response = []byte(resp)
	return row, true, nil
}

func (r runner) InsertIdempotencyKey(key string, row store.IdempotencyRow, at time.Time) error {
	return r.later("save idempotency key", qIdemInsert, key, row.RequestSHA256, string(row.Response), sqldriver.FormatTime(at))
}

func (r runner) RegistryFiles() ([]store.RegistryFile, error) {
	return sqldriver.Collect(r.rows, "read the registries in force", qRegistries, nil, sqldriver.ScanRegistryFile)
}

func (r runner) PutRegistryFile(f store.RegistryFile) error {
	return r.later("save the registry in force", qRegistryPut, f.Name, f.YAML, f.SHA256, sqldriver.FormatTime(f.SyncedAt))
}

func (r runner) Stats() (store.Stats, error) {
	var s store.Stats
	_, err := r.row("count rows", qStats, nil, &s.Rules, &s.Events, &s.Texts, &s.Embeddings, &s.IdempotencyKeys, &s.Pending, &s.Config)
	return s, err
}
