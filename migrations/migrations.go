// Package migrations holds LexSona's database schemas as numbered SQL files
// (NNN_name.sql), one folder per database, embedded in the binary. A store
// driver applies its database's files in order, each in its own
// transaction, and records every applied version in the schema_migrations
// table.
//
// Rules for adding a migration: never edit a file that has shipped; add the
// next number instead. A file holds plain SQL statements separated by
// semicolons (triggers included) and must not contain BEGIN/COMMIT of its own.
package migrations

import (
	"embed"
	"io/fs"
)

var (
	//go:embed sqlite/*.sql
	sqliteFiles embed.FS
	//go:embed postgres/*.sql
	postgresFiles embed.FS
)

// SQLite and Postgres hold each database's schema files, named NNN_name.sql
// (NNN ≥ 1, no gaps), at their root.
var (
	SQLite   = sub(sqliteFiles, "sqlite")
	Postgres = sub(postgresFiles, "postgres")
)

func sub(fsys fs.FS, dir string) fs.FS {
	f, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a literal embedded above
	}
	return f
}
