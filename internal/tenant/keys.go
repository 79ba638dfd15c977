package tenant

import (
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// Keys are the API keys of a shared server, each naming its tenant: what
// the server authenticates its callers with, and what tells `lexsona mcp
// --tenant` that a tenant without a memory yet is meant to have one. Read
// and Write are the default tenant's keys; Tenants holds the keys of named
// tenants, whose callers reach their own tenant's memory only. No key at
// all means an open server with the default tenant only.
type Keys struct {
	Read  []string
	Write []string
	// Tenants maps a tenant name to its keys.
	Tenants map[string]KeyPair
}

// KeyPair are one named tenant's keys.
type KeyPair struct {
	Read  []string
	Write []string
}

// MinKeyLength is the shortest key ParseKeys accepts.
const MinKeyLength = 16

// Empty reports whether no key is configured (the API is open).
func (k Keys) Empty() bool { return len(k.Read) == 0 && len(k.Write) == 0 && len(k.Tenants) == 0 }

// Named reports whether keys of named tenants are configured.
func (k Keys) Named() bool { return len(k.Tenants) > 0 }

// TenantNames returns the named tenants, sorted.
func (k Keys) TenantNames() []string {
	names := make([]string, 0, len(k.Tenants))
	for n := range k.Tenants {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseKeys parses the --api-keys flag / LEXSONA_API_KEYS value: a
// comma-separated list of entries, each one of
//
//	read:KEY, write:KEY, KEY          a key of the default tenant (a bare KEY is a write key)
//	TENANT:read:KEY, TENANT:write:KEY a key of the named tenant TENANT
//
// e.g. "read:r-0123456789abcdef,alice:write:w-0123456789abcdef". A tenant
// name is lower-case letters, digits and _ (CheckName); "default" names
// the default tenant. White space around entries is ignored; "" means no
// keys. A key is at least MinKeyLength characters of printable ASCII
// without spaces or commas, and belongs to one tenant only. Errors are
// EINVALID and name the entry by position, never the key itself.
func ParseKeys(s string) (Keys, error) {
	var k Keys
	if strings.TrimSpace(s) == "" {
		return k, nil
	}
	owner := map[string]string{} // key -> tenant
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if err := k.addEntry(entry, owner); err != nil {
			return Keys{}, engine.Errorf(engine.EINVALID, "API key entry %d: %s", i+1, engine.ErrorMessage(err))
		}
	}
	return k, nil
}

// addEntry adds one entry of ParseKeys; owner records each key's tenant.
func (k *Keys) addEntry(entry string, owner map[string]string) error {
	name, kind, key := Default, "write", entry
	if first, rest, ok := strings.Cut(entry, ":"); ok {
		kind, key = first, rest
		if lower := strings.ToLower(first); lower != "read" && lower != "write" {
			if second, rest2, ok2 := strings.Cut(rest, ":"); ok2 {
				access := strings.ToLower(second)
				if err := CheckName(first); err != nil && (access == "read" || access == "write") {
					return err // TENANT:read:KEY with a name that is not one
				} else if err == nil {
					name, kind, key = first, second, rest2
				}
			}
		}
	}
	if err := checkKey(key); err != nil {
		return err
	}
	if prev, dup := owner[key]; dup && prev != name {
		return engine.Errorf(engine.EINVALID, "the key is given to tenant %s already and also to %s: a key belongs to one tenant", prev, name)
	}
	owner[key] = name
	var read, write *[]string
	if name == Default {
		read, write = &k.Read, &k.Write
	} else {
		if k.Tenants == nil {
			k.Tenants = map[string]KeyPair{}
		}
		tk := k.Tenants[name]
		defer func() { k.Tenants[name] = tk }()
		read, write = &tk.Read, &tk.Write
	}
	switch strings.ToLower(kind) {
	case "read":
		*read = append(*read, key)
	case "write":
		*write = append(*write, key)
	default:
		return engine.Errorf(engine.EINVALID, "unknown kind %q: want read:KEY, write:KEY or TENANT:read:KEY, TENANT:write:KEY", kind)
	}
	return nil
}

func checkKey(key string) error {
	if len(key) < MinKeyLength {
		return engine.Errorf(engine.EINVALID, "the key is %d characters long: at least %d", len(key), MinKeyLength)
	}
	for _, r := range key {
		if r <= ' ' || r > '~' || r == ',' {
			return engine.Errorf(engine.EINVALID, "the key has a character that is not printable ASCII, or a space or comma")
		}
	}
	return nil
}
