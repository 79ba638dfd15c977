package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
)

// APIKeys are the bearer tokens the API accepts. A read key may call every
// read route (GET, and POST /v1/classify and /v1/embeddings); a write key may
// call every route. With no key at all the API is open (and has only the
// default tenant). Read and Write are the default tenant's keys; Tenants
// holds the keys of named tenants (see package internal/tenant), whose
// callers reach their own tenant's memory only.
type APIKeys struct {
	Read  []string
	Write []string
	// Tenants maps a tenant name to its keys.
	Tenants map[string]TenantKeys
}

// TenantKeys are one named tenant's keys.
type TenantKeys struct {
	Read  []string
	Write []string
}

// MinAPIKeyLength is the shortest key ParseAPIKeys accepts.
const MinAPIKeyLength = 16

// Empty reports whether no key is configured (the API is open).
func (k APIKeys) Empty() bool { return len(k.Read) == 0 && len(k.Write) == 0 && len(k.Tenants) == 0 }

// Named reports whether keys of named tenants are configured.
func (k APIKeys) Named() bool { return len(k.Tenants) > 0 }

// TenantNames returns the named tenants, sorted.
func (k APIKeys) TenantNames() []string {
	names := make([]string, 0, len(k.Tenants))
	for n := range k.Tenants {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseAPIKeys parses the --api-keys flag / LEXSONA_API_KEYS value: a
// comma-separated list of entries, each one of
//
//	read:KEY, write:KEY, KEY          a key of the default tenant (a bare KEY is a write key)
//	TENANT:read:KEY, TENANT:write:KEY a key of the named tenant TENANT
//
// e.g. "read:r-0123456789abcdef,alice:write:w-0123456789abcdef". A tenant
// name is lower-case letters, digits and _ (tenant.CheckName); "default"
// names the default tenant. White space around entries is ignored; ""
// means no keys. A key is at least MinAPIKeyLength characters of printable
// ASCII without spaces or commas, and belongs to one tenant only. Errors
// are EINVALID and name the entry by position, never the key itself.
func ParseAPIKeys(s string) (APIKeys, error) {
	var k APIKeys
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
			return APIKeys{}, engine.Errorf(engine.EINVALID, "API key entry %d: %s", i+1, engine.ErrorMessage(err))
		}
	}
	return k, nil
}

// addEntry adds one entry of ParseAPIKeys; owner records each key's tenant.
func (k *APIKeys) addEntry(entry string, owner map[string]string) error {
	name, kind, key := tenant.Default, "write", entry
	if first, rest, ok := strings.Cut(entry, ":"); ok {
		kind, key = first, rest
		if lower := strings.ToLower(first); lower != "read" && lower != "write" {
			if second, rest2, ok2 := strings.Cut(rest, ":"); ok2 {
				access := strings.ToLower(second)
				if err := tenant.CheckName(first); err != nil && (access == "read" || access == "write") {
					return err // TENANT:read:KEY with a name that is not one
				} else if err == nil {
					name, kind, key = first, second, rest2
				}
			}
		}
	}
	if err := checkAPIKey(key); err != nil {
		return err
	}
	if prev, dup := owner[key]; dup && prev != name {
		return engine.Errorf(engine.EINVALID, "the key is given to tenant %s already and also to %s: a key belongs to one tenant", prev, name)
	}
	owner[key] = name
	var read, write *[]string
	if name == tenant.Default {
		read, write = &k.Read, &k.Write
	} else {
		if k.Tenants == nil {
			k.Tenants = map[string]TenantKeys{}
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

func checkAPIKey(key string) error {
	if len(key) < MinAPIKeyLength {
		return engine.Errorf(engine.EINVALID, "the key is %d characters long: at least %d", len(key), MinAPIKeyLength)
	}
	for _, r := range key {
		if r <= ' ' || r > '~' || r == ',' {
			return engine.Errorf(engine.EINVALID, "the key has a character that is not printable ASCII, or a space or comma")
		}
	}
	return nil
}

// access levels a request may be granted.
const (
	accessNone = iota
	accessRead
	accessWrite
)

// keyring holds sha256 digests of the configured keys, so that comparisons
// are constant-time and independent of the keys' lengths.
type keyring struct {
	keys []ringKey
}

// ringKey is one configured key: its digest, access and tenant.
type ringKey struct {
	digest [32]byte
	access int
	tenant string
}

func newKeyring(k APIKeys) *keyring {
	kr := &keyring{}
	add := func(name string, read, write []string) {
		for _, key := range write {
			kr.keys = append(kr.keys, ringKey{sha256.Sum256([]byte(key)), accessWrite, name})
		}
		for _, key := range read {
			kr.keys = append(kr.keys, ringKey{sha256.Sum256([]byte(key)), accessRead, name})
		}
	}
	add(tenant.Default, k.Read, k.Write)
	for _, name := range k.TenantNames() {
		add(name, k.Tenants[name].Read, k.Tenants[name].Write)
	}
	return kr
}

func (kr *keyring) empty() bool { return len(kr.keys) == 0 }

// level returns the access a presented token grants and the tenant it
// belongs to. Every configured key is compared (no early exit), each in
// constant time; a key given as both read and write keeps write.
func (kr *keyring) level(token string) (access int, tenantName string) {
	d := sha256.Sum256([]byte(token))
	for i := range kr.keys {
		if subtle.ConstantTimeCompare(d[:], kr.keys[i].digest[:]) == 1 && kr.keys[i].access > access {
			access, tenantName = kr.keys[i].access, kr.keys[i].tenant
		}
	}
	return access, tenantName
}

// readPOSTs are POST routes that only read.
var readPOSTs = map[string]bool{"/v1/classify": true, "/v1/embeddings": true}

// needsWrite reports whether a request to route path with method changes state.
func needsWrite(method, path string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	case http.MethodPost:
		return !readPOSTs[path]
	}
	return true
}

// bearerToken extracts the token of an "Authorization: Bearer TOKEN" header.
func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get(echo.HeaderAuthorization)
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// authMiddleware enforces the keys on /v1 routes (and /metrics when
// MetricsNeedKey, which named tenants turn on): 401 without a key or with a
// wrong one, 403 for a read key on a write route or a named tenant's key on
// /metrics. It sets the request's tenant, the key's (see setTenant);
// without keys every request is the default tenant's.
func (s *Server) authMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.keys.empty() {
			return next(c)
		}
		p := c.Request().URL.Path
		protected := strings.HasPrefix(p, "/v1/") || p == "/v1" || (p == "/metrics" && s.cfg.MetricsNeedKey)
		if !protected {
			return next(c)
		}
		tok, ok := bearerToken(c.Request())
		if !ok {
			return &apiError{codeUnauthorized, "missing API key: send Authorization: Bearer KEY"}
		}
		lvl, name := s.keys.level(tok)
		if lvl == accessNone {
			return &apiError{codeUnauthorized, "invalid API key"}
		}
		if lvl == accessRead && needsWrite(c.Request().Method, c.Path()) {
			return &apiError{codeForbidden, "this API key may only read: " + c.Request().Method + " " + c.Path() + " needs a write key"}
		}
		if p == "/metrics" && name != tenant.Default {
			return &apiError{codeForbidden, "/metrics is the operator's: it needs a key of the default tenant"}
		}
		setTenant(c, name)
		return next(c)
	}
}
