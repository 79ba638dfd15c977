// Package migrations holds LexSona's SQLite schema as numbered SQL files
// (NNN_name.sql), embedded in the binary. The store applies them in order,
// each in its own transaction, and records every applied version in the
// schema_migrations table; see store.Open.
//
// Rules for adding a migration: never edit a file that has shipped; add the
// next number instead. A file holds plain SQL statements separated by
// semicolons (triggers included) and must not contain BEGIN/COMMIT of its own.
package migrations

import "embed"

// FS holds the migration files, named NNN_name.sql (NNN ≥ 1, no gaps).
//
//go:embed *.sql
var FS embed.FS
