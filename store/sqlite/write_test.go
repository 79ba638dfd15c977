package sqlite

import (
	"context"
	"testing"

	"github.com/lexsona/lexsona/store/internal/groupcommit/committest"
)

// The group-commit scenarios of committest, on a SQLite file: the write
// queue's savepoints, its rollback of a failed first write and its
// cancelled and closed cases on the single write connection.

func TestWriteGroupCommit(t *testing.T) {
	db, d := mustOpen(t)
	committest.Group(t, db, d, d.writer)
}

func TestWriteFirstOfGroupFails(t *testing.T) {
	db, d := mustOpen(t)
	committest.FirstOfGroupFails(t, db, d, d.writer)
}

func TestWriteCancelledWhileQueued(t *testing.T) {
	db, d := mustOpen(t)
	committest.CancelledWhileQueued(t, db, d, d.writer)
}

func TestWriteAfterClose(t *testing.T) {
	db, _, err := openPath(context.Background(), t.TempDir()+"/x.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	committest.AfterClose(t, db)
}
