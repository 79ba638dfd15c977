package registry

import "testing"

// MustParse parses a registry or fails tb.
func MustParse(tb testing.TB, data, name string) *Registry {
	tb.Helper()
	reg, err := Parse([]byte(data), name)
	if err != nil {
		tb.Fatalf("Parse(%s): %v", name, err)
	}
	return reg
}
