package memory

import (
	"context"
	"slices"

	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

// InForce returns the registries in force, merged into one
// (see the function InForce): every source recorded by a sync, by name; the default
// pack when none is recorded. Errors: the store's; EINVALID naming a
// recorded registry this build cannot parse.
func (s *Service) InForce(ctx context.Context) (*registry.Registry, error) {
	return InForce(ctx, s.db)
}

// RegistryYAML returns the YAML of registry name as the store holds it in
// force, and whether it holds one by that name. Errors: the store's.
func (s *Service) RegistryYAML(ctx context.Context, name string) ([]byte, bool, error) {
	files, err := s.db.Registries(ctx)
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(files, func(f store.RegistryFile) bool { return f.Name == name })
	if i < 0 {
		return nil, false, nil
	}
	return files[i].YAML, true, nil
}
