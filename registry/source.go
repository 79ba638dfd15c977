package registry

import "github.com/lexsona/lexsona/engine"

// Source is a registry to sync: its YAML and what names it. Its source name
// is the YAML's top-level name:, else Name, else File's base name; an
// upload (no File) must have name: or Name.
type Source struct {
	YAML []byte
	// File is the file the YAML was read from (a path, "default" for the
	// default pack, "" for an upload): problems are reported under it.
	File string
	// Name is the source name the caller gives; the YAML's name:, when it
	// has one, must be the same.
	Name string
}

// DefaultSource is the default pack (source "default") as a Source.
func DefaultSource() Source { return Source{File: "default", YAML: DefaultYAML()} }

// Parse parses src, accepting a registry without rules when allowEmpty.
// Errors: ParseWith's; EINVALID when the YAML's name: differs from src.Name.
func (src Source) Parse(allowEmpty bool) (*Registry, error) {
	reg, err := ParseWith(src.YAML, ParseOptions{File: src.File, Name: src.Name, AllowEmpty: allowEmpty})
	if err != nil {
		return nil, err
	}
	if src.Name != "" && reg.Name() != src.Name {
		return nil, engine.Errorf(engine.EINVALID, "the registry names itself %q (name:) but the sync names it %q: give one name, or the same in both", reg.Name(), src.Name)
	}
	return reg, nil
}
