package store

import (
	"context"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/lexsona/lexsona/engine"
)

// Kind is a kind of database, as the driver package that serves it
// registers it (Register): the data source names it serves, how to open
// one, and where the databases of named tenants live beside one.
type Kind struct {
	// Name names the driver ("sqlite", "postgres").
	Name string
	// Schemes are the URL schemes of the data source names it serves,
	// lowercase ("postgres", "postgresql"); none: it serves file paths
	// (at most one kind does).
	Schemes []string
	// Describe says what a data source name of this kind is, for messages
	// ("a SQLite file path", "a postgres:// URL").
	Describe string
	// Open opens a database of this kind.
	Open Opener
	// Tenants answers where named tenants' databases live beside a
	// database of this kind (nil: this kind has no named tenants).
	Tenants Tenants
}

// Tenants places the databases of named tenants beside a base database of
// one kind (the default tenant's). Names are checked by the caller
// (internal/tenant). Errors: EINVALID for a base that does not parse or a
// name the database cannot hold; EUNAVAILABLE when the database server
// cannot be asked or the tenant's database cannot be made.
type Tenants interface {
	// Location returns the data source name of tenant name's database
	// (credentials kept).
	Location(base, name string) (string, error)
	// Where names it for messages, without credentials ("file <path>",
	// "PostgreSQL schema <schema>"); "" when it cannot be named.
	Where(base, name string) string
	// Exists reports whether it exists yet, creating nothing.
	Exists(ctx context.Context, base, name string) (bool, error)
	// Provision makes it ready to open when it is missing (a PostgreSQL
	// schema and its role; a file is created by Open) and returns the
	// data source name to open it with and whether it was missing, noting
	// on log what an operator should know.
	Provision(ctx context.Context, base, name string, log *slog.Logger) (dsn string, created bool, err error)
}

var (
	kindsMu sync.RWMutex
	kinds   = map[string]Kind{}
)

// Register makes a kind of database available to Open. A driver package
// calls it from its init function, so a program selects the databases it
// supports by importing their packages (import _
// "github.com/lexsona/lexsona/store/sqlite"). It panics when k has no name
// or no Open, when its name or one of its schemes is registered already,
// or when it is a second kind that serves file paths.
func Register(k Kind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if k.Name == "" || k.Open == nil {
		panic("store: Register of a kind without a name or an Open: " + k.Name)
	}
	if _, dup := kinds[k.Name]; dup {
		panic("store: Register called twice for driver " + k.Name)
	}
	for _, o := range kinds {
		if len(k.Schemes) == 0 && len(o.Schemes) == 0 {
			panic("store: drivers " + o.Name + " and " + k.Name + " both serve file paths")
		}
		for _, s := range k.Schemes {
			if slices.Contains(o.Schemes, s) {
				panic("store: drivers " + o.Name + " and " + k.Name + " both serve " + s + "://")
			}
		}
	}
	kinds[k.Name] = k
}

// urlScheme matches a URL's scheme (two characters at least, so that a
// Windows drive letter is not one).
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+)://`)

// KindOf returns the registered kind that serves dsn: the one whose
// schemes name its URL scheme, or, for a file path, the one that serves
// file paths. Errors: EINVALID for an empty dsn or a URL whose scheme no
// registered kind serves; EUNAVAILABLE for a file path when no registered
// kind serves file paths.
func KindOf(dsn string) (Kind, error) {
	d := strings.TrimSpace(dsn)
	if d == "" {
		return Kind{}, engine.Errorf(engine.EINVALID, "database path is empty")
	}
	scheme := ""
	if m := urlScheme.FindStringSubmatch(d); m != nil {
		scheme = strings.ToLower(m[1])
	}
	if k, ok := kindServing(scheme); ok {
		return k, nil
	}
	if scheme != "" {
		return Kind{}, notBuiltIn(engine.EINVALID, "the database "+scheme+"://… is not one this program stores in")
	}
	return Kind{}, notBuiltIn(engine.EUNAVAILABLE, "no store driver for file paths is built into this program")
}

// kindServing returns the registered kind that serves URLs of scheme, or
// file paths when scheme is "".
func kindServing(scheme string) (Kind, bool) {
	kindsMu.RLock()
	defer kindsMu.RUnlock()
	for _, k := range kinds {
		if scheme == "" && len(k.Schemes) == 0 || scheme != "" && slices.Contains(k.Schemes, scheme) {
			return k, true
		}
	}
	return Kind{}, false
}

// DriverName returns the name of the registered driver that serves dsn,
// "" when none does.
func DriverName(dsn string) string {
	k, err := KindOf(dsn)
	if err != nil {
		return ""
	}
	return k.Name
}

// TenantsOf returns where the named tenants of the database base live.
// Errors: KindOf's; EINVALID when base's kind has no named tenants.
func TenantsOf(base string) (Tenants, error) {
	k, err := KindOf(base)
	if err != nil {
		return nil, err
	}
	if k.Tenants == nil {
		return nil, engine.Errorf(engine.EINVALID, "the %s store keeps no named tenants", k.Name)
	}
	return k.Tenants, nil
}

// describeKinds lists what the registered kinds serve ("a SQLite file
// path or a postgres:// URL"), by name; "nothing" when none is.
func describeKinds() string {
	kindsMu.RLock()
	var ds []string
	for _, n := range sortedNames(kinds) {
		if d := kinds[n].Describe; d != "" {
			ds = append(ds, d)
		}
	}
	kindsMu.RUnlock()
	switch len(ds) {
	case 0:
		return "a data source of a driver built into this program (none is)"
	case 1:
		return ds[0]
	}
	return strings.Join(ds[:len(ds)-1], ", ") + " or " + ds[len(ds)-1]
}

func sortedNames(m map[string]Kind) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
