package registry

import (
	_ "embed"
	"sync"
)

//go:embed default.yaml
var defaultYAML []byte

var defaultPack = sync.OnceValue(func() *Registry {
	reg, err := Parse(defaultYAML, "default")
	if err != nil {
		panic("registry: the embedded default pack is invalid: " + err.Error()) // TestDefault guards this
	}
	return reg
})

// Default returns the rule pack embedded in the binary, parsed once: the
// registry used when none is given. It never fails (a test proves the pack
// parses cleanly).
func Default() *Registry { return defaultPack() }

// DefaultYAML returns the source of the default pack, e.g. for a
// "registry init" command that writes it out as a starting point.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }
