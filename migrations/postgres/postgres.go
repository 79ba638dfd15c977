// Package postgres holds LexSona's PostgreSQL schema as numbered SQL files
// (NNN_name.sql), embedded in the binary. The PostgreSQL store driver
// (store/postgres) applies them in order, each in its own transaction, and
// records every applied version in the schema_migrations table. The rules of
// package migrations apply: never edit a file that has shipped, add the next
// number; no BEGIN/COMMIT of a file's own.
package postgres

import (
	"embed"
	"io/fs"
)

//go:embed *.sql
var files embed.FS

// FS holds the files, named NNN_name.sql (NNN ≥ 1, no gaps), at its root.
var FS fs.FS = files
