package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lexsona/lexsona/engine"
)

// A named tenant's store is a schema of the default tenant's database:
// <prefix><name> (SchemaPrefix), its pool's search_path that schema only.
// When the connecting role may create roles, each tenant also gets a role
// of the same name (NOLOGIN) that owns its schema, and the tenant's
// connections run as it (the startup parameter role, i.e. SET ROLE), so
// even a query naming another tenant's schema is refused by the server.

// SchemaPrefix returns the prefix of the tenants' schemas (and roles) for
// the PostgreSQL URL base: lexsona_t_ when its search_path is unset or
// public, else <that schema>_t_, so that two installations in schemas of
// one database keep their tenants apart.
func SchemaPrefix(base *url.URL) string {
	sp := strings.TrimSpace(base.Query().Get("search_path"))
	if first, _, _ := strings.Cut(sp, ","); strings.TrimSpace(first) != "" && strings.TrimSpace(first) != "public" {
		return strings.Trim(strings.TrimSpace(first), `"`) + "_t_"
	}
	return "lexsona_t_"
}

// tenants places named tenants in schemas (place).
type tenants struct {
	warnOnce sync.Once // the "no role per tenant" warning
}

func (*tenants) Location(base, name string) (string, error) {
	p, err := newPlace(base, name)
	if err != nil {
		return "", err
	}
	return p.url(false), nil
}

func (*tenants) Where(base, name string) string {
	p, err := newPlace(base, name)
	if err != nil {
		return ""
	}
	return "PostgreSQL schema " + p.schema
}

// Exists reports whether the tenant's schema exists. Errors: EINVALID for
// a base that does not parse or a name too long for a schema;
// EUNAVAILABLE when the server cannot be asked.
func (*tenants) Exists(ctx context.Context, base, name string) (bool, error) {
	p, err := newPlace(base, name)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.adminURL())
	if err != nil {
		return false, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: cannot connect to PostgreSQL: %v", name, err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, qSchemaExists, p.schema).Scan(&exists); err != nil {
		return false, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: cannot look up its schema %s: %v", name, p.schema, err)
	}
	return exists, nil
}

// Provision creates the tenant's schema and, when the connecting role may
// create roles, its role (see provision), and returns the tenant's URL:
// running as that role when there is one. Without one it logs, once per
// process, that tenants are kept apart by their schemas only. Errors:
// newPlace's; EUNAVAILABLE naming the cause.
func (t *tenants) Provision(ctx context.Context, base, name string, log *slog.Logger) (string, bool, error) {
	p, err := newPlace(base, name)
	if err != nil {
		return "", false, err
	}
	withRole, created, err := p.provision(ctx)
	if err != nil {
		return "", false, err
	}
	if !withRole {
		t.warnOnce.Do(func() {
			log.Warn("tenant stores: the PostgreSQL role may not create roles, so tenants are kept apart by their schemas " +
				"(search_path) only; grant it CREATEROLE to give every tenant a role of its own")
		})
	}
	return p.url(withRole), created, nil
}

// place is where a named tenant lives in a PostgreSQL database: its
// schema, and the role of the same name that owns it when roles can be
// created.
type place struct {
	base   *url.URL
	schema string // also the role's name
}

// newPlace returns tenant name's place beside base. Errors: EINVALID for
// a base that does not parse or a schema name over 63 bytes.
func newPlace(base, name string) (*place, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, engine.Errorf(engine.EINVALID, "the PostgreSQL URL does not parse: %v", errors.Unwrap(err))
	}
	schema := SchemaPrefix(u) + name
	if len(schema) > 63 {
		return nil, engine.Errorf(engine.EINVALID, "tenant %s: its schema name %s is longer than PostgreSQL's 63 bytes: use a shorter tenant name", name, schema)
	}
	return &place{base: u, schema: schema}, nil
}

// url is the tenant's URL: the base with search_path set to the tenant's
// schema only and, withRole, the startup parameter role (SET ROLE for the
// whole session).
func (p *place) url(withRole bool) string {
	u := *p.base
	q := u.Query()
	q.Set("search_path", p.schema)
	q.Del("role")
	if withRole {
		q.Set("role", p.schema)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// adminURL is the base URL for a plain connection: without the pool's
// parameters, which a single connection would send to the server.
func (p *place) adminURL() string {
	u := *p.base
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// provisionLock keys the advisory lock that makes instances create a
// tenant's role one at a time.
var provisionLock = func() int64 {
	h := fnv.New64a()
	h.Write([]byte("lexsona tenant provision"))
	return int64(h.Sum64())
}()

// provision creates the tenant's schema (createSchema) and, when the
// connecting role may create roles, its role (NOLOGIN, granted to the
// connecting role so that it may SET ROLE to it) owning the schema.
// withRole reports whether the tenant's connections should run as that
// role; created whether the schema was created now. Errors: EUNAVAILABLE
// naming the cause.
func (p *place) provision(ctx context.Context) (withRole, created bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	fail := func(what string, err error) (bool, bool, error) {
		return false, false, engine.Errorf(engine.EUNAVAILABLE, "tenant schema %s: cannot %s: %v", p.schema, what, err)
	}
	conn, err := pgx.Connect(ctx, p.adminURL())
	if err != nil {
		return fail("connect to PostgreSQL", err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fail("begin", err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, provisionLock); err != nil {
		return fail("lock", err)
	}
	var me string
	if err := tx.QueryRow(ctx, `SELECT current_user::text, rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user`).Scan(&me, &withRole); err != nil {
		return fail("read the connecting role", err)
	}
	owner := ""
	if withRole {
		if err := p.ensureRole(ctx, tx, me); err != nil {
			return fail("create its role", err)
		}
		owner = p.schema
	}
	created, had, err := createSchema(ctx, tx, p.schema, owner)
	switch {
	case err != nil:
		return fail("create it", err)
	case withRole && !created && had != p.schema:
		return false, false, engine.Errorf(engine.EUNAVAILABLE,
			"tenant schema %s exists but is owned by %s, not by the tenant's role %s: ALTER SCHEMA %s OWNER TO %s and the same for its tables",
			p.schema, had, p.schema, p.schema, p.schema)
	}
	if err := tx.Commit(ctx); err != nil {
		return fail("commit", err)
	}
	return withRole, created, nil
}

// ensureRole creates the tenant's role when missing and makes the
// connecting role me a member, so that it may SET ROLE to it.
func (p *place) ensureRole(ctx context.Context, tx pgx.Tx, me string) error {
	ident := pgx.Identifier{p.schema}.Sanitize()
	var exists, member bool
	err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, p.schema).Scan(&exists)
	if err != nil {
		return err
	}
	if !exists {
		if _, err := tx.Exec(ctx, `CREATE ROLE `+ident+` NOLOGIN`); err != nil {
			return err
		}
	}
	if err := tx.QueryRow(ctx, `SELECT pg_has_role(current_user, $1, 'MEMBER')`, p.schema).Scan(&member); err != nil {
		return err
	}
	if !member {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`GRANT %s TO %s`, ident, pgx.Identifier{me}.Sanitize())); err != nil {
			return err
		}
	}
	return nil
}
