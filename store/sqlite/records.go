package sqlite

import (
	"database/sql"
	"errors"
	"time"

	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// Config overrides, idempotency keys and the registries in force.

var (
	qConfigAll    = sqlq(`SELECT key, value FROM persona_config ORDER BY key`)
	qConfigUpsert = sqlq(`INSERT INTO persona_config (key, value, updated_at) VALUES (?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`)
	qConfigDelete = sqlq(`DELETE FROM persona_config WHERE key = ?`)
	qIdemGet      = sqlq(`SELECT request_sha256, response FROM idempotency_keys WHERE key = ?`)
	qIdemInsert   = sqlq(`INSERT INTO idempotency_keys (key, request_sha256, response, created_at) VALUES (?, ?, ?, ?)`)
	qIdemPrune    = `DELETE FROM idempotency_keys WHERE created_at < ?`
	qRegistries   = sqlq(`SELECT name, yaml, sha256, synced_at FROM registry_source ORDER BY name`)
	qRegistryPut  = `INSERT INTO registry_source (name, yaml, sha256, synced_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET yaml = excluded.yaml, sha256 = excluded.sha256, synced_at = excluded.synced_at
		WHERE registry_source.sha256 <> excluded.sha256`
	qStats = `SELECT (SELECT count(*) FROM persona_rules), (SELECT count(*) FROM persona_events),
	(SELECT count(*) FROM rule_texts), (SELECT count(*) FROM persona_embeddings), (SELECT count(*) FROM idempotency_keys),
	(SELECT count(*) FROM pending_confirmations), (SELECT count(*) FROM persona_config)`
)

func (r runner) ConfigRows() ([]store.ConfigRow, error) {
	return sqldriver.Collect(r.scan, "load config", qConfigAll, nil, sqldriver.ScanConfigRow)
}

func (r runner) PutConfig(key, value string, at time.Time) error {
	return r.execErr("store config", qConfigUpsert, key, value, sqldriver.FormatTime(at))
}

func (r runner) DeleteConfig(key string) error { return r.execErr("reset config", qConfigDelete, key) }

func (r runner) IdempotencyKey(key string) (store.IdempotencyRow, bool, error) {
	var row store.IdempotencyRow
	var resp string
	err := r.queryRow(qIdemGet, key).Scan(&row.RequestSHA256, &resp)
	if errors.Is(err, sql.ErrNoRows) {
		return row, false, nil
	}
	if err != nil {
		return row, false, dbErr("look up idempotency key", err)
	}
	row.Response = []byte(resp)
	return row, true, nil
}

func (r runner) InsertIdempotencyKey(key string, row store.IdempotencyRow, at time.Time) error {
	return r.execErr("save idempotency key", qIdemInsert, key, row.RequestSHA256, string(row.Response), sqldriver.FormatTime(at))
}

func (r runner) PruneIdempotencyKeys(before time.Time) (int64, error) {
	res, err := r.exec(qIdemPrune, sqldriver.FormatTime(before))
	if err != nil {
		return 0, dbErr("prune idempotency keys", err)
	}
	n, err := res.RowsAffected()
	return n, dbErr("prune idempotency keys", err)
}

func (r runner) RegistryFiles() ([]store.RegistryFile, error) {
	return sqldriver.Collect(r.scan, "read the registries in force", qRegistries, nil, sqldriver.ScanRegistryFile)
}

func (r runner) PutRegistryFile(f store.RegistryFile) error {
	return r.execErr("save the registry in force", qRegistryPut, f.Name, f.YAML, f.SHA256, sqldriver.FormatTime(f.SyncedAt))
}

func (r runner) Stats() (store.Stats, error) {
	var s store.Stats
	err := r.queryRow(qStats).Scan(&s.Rules, &s.Events, &s.Texts, &s.Embeddings, &s.IdempotencyKeys, &s.Pending, &s.Config)
	return s, dbErr("count rows", err)
}
