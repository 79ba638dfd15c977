package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
)

// stmtSet is one pool's prepared statements, all prepared at the pool's
// first use and kept until Close: a process that only reads (a hook
// answering one event) never compiles the writes, and the read pool never
// compiles a statement it cannot run. Each is compiled once per connection
// instead of once per call.
type stmtSet struct {
	pool    *sql.DB
	queries []string
	once    sync.Once
	m       map[string]*sql.Stmt
}

func newStmtSet(pool *sql.DB, queries []string) *stmtSet {
	return &stmtSet{pool: pool, queries: queries}
}

// ready prepares the set on its first call. It must be called outside any
// transaction of the pool (the write pool has one connection). A statement
// that cannot be prepared is left out: it runs unprepared, and SQLite's
// error reaches its caller there.
func (s *stmtSet) ready(ctx context.Context) {
	s.once.Do(func() {
		s.m = make(map[string]*sql.Stmt, len(s.queries))
		for _, q := range s.queries {
			if st, err := s.pool.PrepareContext(context.WithoutCancel(ctx), q); err == nil {
				s.m[q] = st
			}
		}
	})
}

// get is q's prepared statement, nil when the set is not ready or q is not
// in it.
func (s *stmtSet) get(q string) *sql.Stmt { return s.m[q] }

// close closes the prepared statements; Close of their pool follows.
func (s *stmtSet) close() error {
	s.once.Do(func() {}) // a set never readied stays empty
	var errs []error
	for _, st := range s.m {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// reads are the statements of queries that only read: the read pool's.
func reads(queries []string) []string {
	var out []string
	for _, q := range queries {
		head := strings.ToUpper(strings.TrimSpace(q))
		if strings.HasPrefix(head, "SELECT") || (strings.HasPrefix(head, "WITH") &&
			!strings.Contains(head, "INSERT") && !strings.Contains(head, "UPDATE") && !strings.Contains(head, "DELETE")) {
			out = append(out, q)
		}
	}
	return out
}
