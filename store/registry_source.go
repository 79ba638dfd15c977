package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"time"
)

// The registry in force: the file last synced, kept so that commands given no
// --registry go on using it instead of the default pack.
const (
	qRegistryGet = `SELECT name, yaml FROM registry_source WHERE id = 1`
	qRegistryPut = `INSERT INTO registry_source (id, name, yaml, sha256, synced_at) VALUES (1, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, yaml = excluded.yaml, sha256 = excluded.sha256, synced_at = excluded.synced_at
		WHERE registry_source.name <> excluded.name OR registry_source.sha256 <> excluded.sha256`
)

// Registry returns the name and YAML of the registry last saved with
// SaveRegistry; ok is false when none was. Errors are internal.
func (db *DB) Registry(ctx context.Context) (name string, yaml []byte, ok bool, err error) {
	err = db.reader(ctx).queryRow(qRegistryGet).Scan(&name, &yaml)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, dbErr("read the registry in force", err)
	}
	return name, yaml, true, nil
}

// SaveRegistry records name and yaml as the registry in force. It writes
// nothing when they are already (so it succeeds on a database opened
// read-only then). Call it after a successful sync of that registry (or
// give them to SyncRegistry, which records them with the sync).
func (db *DB) SaveRegistry(ctx context.Context, name string, yaml []byte) error {
	if cur, data, ok, err := db.Registry(ctx); err != nil || (ok && cur == name && string(data) == string(yaml)) {
		return err
	}
	return db.Write(ctx, func(tx *Tx) error { return tx.saveRegistry(name, yaml) })
}

// saveRegistry records name and yaml as the registry in force in tx (no
// change when they already are).
func (tx *Tx) saveRegistry(name string, yaml []byte) error {
	sum := sha256.Sum256(yaml)
	_, err := tx.exec(qRegistryPut, name, yaml, hex.EncodeToString(sum[:]), fmtTime(time.Now()))
	return dbErr("save the registry in force", err)
}
