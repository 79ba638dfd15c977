package memory

import (
	"bytes"
	"testing"

	"github.com/lexsona/lexsona/registry"
)

// TestRegistryYAMLAndInForce: a synced registry's YAML comes back as
// synced; a name never synced is not held; the registries in force merge
// the default pack and the synced one.
func TestRegistryYAMLAndInForce(t *testing.T) {
	s, _ := MustDefaultService(t, Options{})
	ctx := t.Context()
	yaml := []byte("version: 1\nname: team\nrules:\n  - rule_id: team.use-just\n    category: tool_preference\n    severity: should\n    template: \"Run tasks with just\"\n")
	if _, _, err := s.SyncRegistry(ctx, registry.Source{Name: "team", YAML: yaml}, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want []byte
		ok   bool
	}{
		{"team", yaml, true},
		{"nobody", nil, false},
	} {
		got, ok, err := s.RegistryYAML(ctx, c.name)
		if err != nil || ok != c.ok || !bytes.Equal(got, c.want) {
			t.Errorf("RegistryYAML(%s) = %q, %v, %v; want %q, %v", c.name, got, ok, err, c.want, c.ok)
		}
	}
	reg, err := s.InForce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := reg.Lookup("team.use-just"); !ok {
		t.Errorf("the registries in force lack team.use-just")
	}
	if _, _, ok := reg.Lookup("tool.no-sed-for-file-editing"); !ok {
		t.Errorf("the registries in force lack the default pack's rules")
	}
}
