package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/migrations"
	"github.com/lexsona/lexsona/store"
	"github.com/lexsona/lexsona/store/internal/sqldriver"
)

// A database whose file cannot be written (a read-only mount, the immutable
// attribute, no write permission) is opened read-only: reads work, each
// write fails at once with the read-only fault and Writable reports it. Nothing is migrated, checkpointed or cleaned then.

// cannotWrite reports whether path exists and opening it for writing fails
// for want of the right to (EROFS, EACCES, EPERM: what a read-only mount,
// permissions and the immutable attribute give).
func cannotWrite(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err == nil {
		f.Close()
		return false
	}
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// roDSN returns the data source name of a read-only connection: mode=ro,
// or, when the write-ahead log's files cannot be created beside a file on a
// read-only mount, immutable=1 (SQLite then reads the file as it is, with no
// locking: nothing can change it).
func roDSN(path string, immutable bool) string {
	q := fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)&_pragma=temp_store(MEMORY)", busyTimeoutMS)
	if immutable {
		q = "immutable=1&" + q
	}
	return fileURL(path) + "?" + q
}

// openReadOnly opens both pools of db read-only and checks that the schema
// is the one this build writes. Errors: EUNAVAILABLE naming what failed
// (the read-only fault's message included) or a schema that would need
// migrating.
func (d *Driver) openReadOnly(ctx context.Context, conns int) error {
	immutable := false
	w, err := openPool(ctx, d.path, roDSN(d.path, false), 1)
	if err != nil { // the log's files cannot be created beside the file
		immutable = true
		w, err = openPool(ctx, d.path, roDSN(d.path, true), 1)
	}
	if err != nil {
		return err
	}
	var current int
	if err := w.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		w.Close()
		return engine.Errorf(engine.EUNAVAILABLE, "%s: its schema cannot be read: %s", store.FaultMessage(store.FaultReadOnly), engine.ErrorMessage(dbErr("read the schema version", err)))
	}
	if want := latestVersion(); current != want {
		w.Close()
		return engine.Errorf(engine.EUNAVAILABLE, "%s, and its schema (version %d) is not this build's (%d): open it once where it can be written", store.FaultMessage(store.FaultReadOnly), current, want)
	}
	r, err := openPool(ctx, d.path, roDSN(d.path, immutable), conns)
	if err != nil {
		w.Close()
		return err
	}
	d.write, d.read, d.readOnly = w, r, true
	return nil
}

// openForReading opens db for a caller that only reads
// (store.Options.ReadOnly): one read-only pool of conns connections serves
// as both pools, and the schema must be this build's. Unlike openReadOnly it never falls back
// to immutable=1, which would read a file another process writes without
// locking it. Errors: EUNAVAILABLE naming what failed, or a schema that
// would need migrating.
func (d *Driver) openForReading(ctx context.Context, conns int) error {
	p, err := openPool(ctx, d.path, roDSN(d.path, false), conns)
	if err != nil {
		return err
	}
	var current int
	if err := p.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		p.Close()
		return engine.Errorf(engine.EUNAVAILABLE, "database %s: its schema cannot be read: %s", d.path, engine.ErrorMessage(dbErr("read the schema version", err)))
	}
	if want := latestVersion(); current != want {
		p.Close()
		return engine.Errorf(engine.EUNAVAILABLE, "database %s: its schema (version %d) is not this build's (%d): open it for writing once, which migrates it", d.path, current, want)
	}
	d.write, d.read, d.readOnly = p, p, true
	return nil
}

// latestVersion is the newest embedded migration's version (0 when they
// cannot be read: the read-only open then refuses the file).
func latestVersion() int { return sqldriver.LatestVersion(migrations.SQLite) }

// orphanEmbeddings selects the embeddings no classifier loads: those of
// archived rules and those whose text is gone.
const orphanEmbeddings = `FROM persona_embeddings WHERE rule_id IN
	(SELECT rule_id FROM persona_rules WHERE status = 'archived')
	OR NOT EXISTS (SELECT 1 FROM rule_texts t
	WHERE t.rule_id = persona_embeddings.rule_id AND t.text_sha256 = persona_embeddings.text_sha256)`

// cleanOrphans deletes the embeddings no classifier loads (orphanEmbeddings).
// A rule restored later has its texts embedded again by the next sync. It
// looks first, with a read that never waits for another process's write
// lock, and writes only when there is something to delete; it returns how
// many it deleted.
func cleanOrphans(ctx context.Context, w *sql.DB) (int64, error) {
	var found bool
	if err := w.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 "+orphanEmbeddings+")").Scan(&found); err != nil {
		return 0, dbErr("look for orphaned embeddings", err)
	}
	if !found {
		return 0, nil
	}
	res, err := w.ExecContext(ctx, "DELETE "+orphanEmbeddings)
	if err != nil {
		return 0, dbErr("delete orphaned embeddings", err)
	}
	return res.RowsAffected()
}
