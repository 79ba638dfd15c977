package store

import (
	"bytes"
	"context"
	"slices"
)

// Registries returns the registries in force: the YAML last synced under
// each name (see RegistrySync.YAML), ordered by name. Errors are internal.
func (db *DB) Registries(ctx context.Context) ([]RegistryFile, error) {
	return db.reader(ctx).RegistryFiles()
}

// Recorded reports whether yaml is recorded under name.
func (db *DB) Recorded(ctx context.Context, name string, yaml []byte) (bool, error) {
	files, err := db.Registries(ctx)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(files, func(f RegistryFile) bool { return f.Name == name })
	return i >= 0 && bytes.Equal(files[i].YAML, yaml), nil
}
