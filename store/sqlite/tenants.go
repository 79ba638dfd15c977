package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/lexsona/lexsona/engine"
)

// TenantPath is the file of tenant name beside the SQLite store base:
// <folder of base>/tenants/<name>.db.
func TenantPath(base, name string) string {
	return filepath.Join(filepath.Dir(base), "tenants", name+".db")
}

// tenants places a named tenant's database in a file of its own beside
// the default tenant's (TenantPath); Open creates it.
type tenants struct{}

func (tenants) Location(base, name string) (string, error) { return TenantPath(base, name), nil }

func (tenants) Where(base, name string) string { return "file " + TenantPath(base, name) }

// Exists reports whether the tenant's file exists. Errors: EUNAVAILABLE
// when it cannot be looked at.
func (tenants) Exists(_ context.Context, base, name string) (bool, error) {
	_, err := os.Stat(TenantPath(base, name))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, engine.Errorf(engine.EUNAVAILABLE, "tenant %s: cannot look at its store: %v", name, err)
}

// Provision returns the tenant's file, created reporting whether it is
// missing (Open creates it).
func (t tenants) Provision(ctx context.Context, base, name string, _ *slog.Logger) (string, bool, error) {
	ok, err := t.Exists(ctx, base, name)
	return TenantPath(base, name), !ok && err == nil, nil
}
