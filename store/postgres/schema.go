package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
)

// namedSchema is the schema a search_path setting names first, unquoted, or
// "" when it names none LexSona could create: an empty path, or one that
// starts with "$user" (the role's own schema, PostgreSQL's default) or a
// system schema.
func namedSchema(searchPath string) string {
	first, _, _ := strings.Cut(searchPath, ",")
	first = strings.TrimSpace(first)
	if len(first) >= 2 && first[0] == '"' && first[len(first)-1] == '"' {
		first = strings.ReplaceAll(first[1:len(first)-1], `""`, `"`)
	} else {
		first = asciiLower(first) // as PostgreSQL folds an unquoted name
	}
	if first == "" || first == "$user" || strings.HasPrefix(first, "pg_") || first == "information_schema" {
		return ""
	}
	return first
}

// asciiLower lowercases the ASCII letters of s only.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// ensureSchema creates schema name, the one the URL's search_path names
// first, when it does not exist (under an advisory lock, so instances
// starting together agree), as a new SQLite file is created for a new
// path, and returns it once the connections work in it. Errors are
// EUNAVAILABLE: the role may not create it (the message says which grant
// is missing), or it exists and the role may not use it.
func (d *Driver) ensureSchema(ctx context.Context, name string) (string, error) {
	var created bool
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) (err error) {
		created, _, err = createSchema(ctx, tx, name, "")
		return err
	})
	if err != nil {
		if pgCode(err) == "42501" {
			return "", engine.Errorf(engine.EUNAVAILABLE,
				"PostgreSQL database %s: the schema %s (the URL's search_path) does not exist and this role may not create it: create it, or GRANT CREATE ON DATABASE to the role", d.location, name)
		}
		return "", d.openErr("create the schema "+name+" of", err)
	}
	if created {
		d.log.Info("store: created the PostgreSQL schema the URL's search_path names", "schema", name, "database", d.location)
	}
	var schema *string
	if err := d.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return "", d.openErr("connect to", err)
	}
	if schema == nil || *schema != name {
		return "", engine.Errorf(engine.EUNAVAILABLE,
			"PostgreSQL database %s: the schema %s (the URL's search_path) exists but this role may not use it: GRANT USAGE, CREATE ON SCHEMA %s to the role", d.location, name, name)
	}
	return name, nil
}

// qSchemaExists reports whether the schema $1 exists.
const qSchemaExists = `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`

// createSchema creates schema name in tx unless it exists — owned by the
// role owner when owner is not "" — and reports whether it did, else who
// owns the one there is. It takes a transaction advisory lock keyed by the
// name first: CREATE SCHEMA IF NOT EXISTS alone is not safe against a
// concurrent one (both see no schema, one fails on the catalog's unique
// index). Both a store's own schema (ensureSchema) and a tenant's
// (place.provision) are created here.
func createSchema(ctx context.Context, tx pgx.Tx, name, owner string) (created bool, had string, err error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockKey("schema", name)); err != nil {
		return false, "", err
	}
	err = tx.QueryRow(ctx, `SELECT pg_get_userbyid(nspowner)::text FROM pg_namespace WHERE nspname = $1`, name).Scan(&had)
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, had, err
	}
	create := `CREATE SCHEMA ` + pgx.Identifier{name}.Sanitize()
	if owner != "" {
		create += ` AUTHORIZATION ` + pgx.Identifier{owner}.Sanitize()
	}
	if _, err := tx.Exec(ctx, create); err != nil {
		return false, "", err
	}
	return true, "", nil
}
