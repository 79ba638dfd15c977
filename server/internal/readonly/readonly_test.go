package readonly

import (
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry"
)

func TestRefusals(t *testing.T) {
	receives := func(name string) bool { return name == "team" }
	for _, c := range []struct {
		name string
		got  string
		want string // "" when nothing is refused
	}{
		{"sync by name", Sync(registry.Source{Name: "team"}, receives), "registry team is shared with this tenant read-only"},
		{"sync by the YAML's name", Sync(registry.Source{YAML: []byte("version: 1\nname: team\nrules: []\n")}, receives), "registry team is shared"},
		{"sync of an owned registry", Sync(registry.Source{Name: "mine"}, receives), ""},
		{"sync of unreadable YAML", Sync(registry.Source{YAML: []byte("::")}, receives), ""},
		{"rule of a received registry", Rule(engine.RuleView{Rule: engine.Rule{RuleID: "team.x", Registry: "team"}}, receives), "rule team.x belongs to registry team, shared with this tenant read-only"},
		{"rule of another registry", Rule(engine.RuleView{Rule: engine.Rule{RuleID: "x.y", Registry: "default"}}, receives), ""},
		{"rule of no registry", Rule(engine.RuleView{Rule: engine.Rule{RuleID: "x.y"}}, receives), ""},
	} {
		if (c.want == "") != (c.got == "") || !strings.Contains(c.got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
}
