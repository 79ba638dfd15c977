package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/internal/tenant"
)

// APIKeys are the bearer tokens the API accepts (tenant.Keys). A read key
// may call every read route (GET, and POST /v1/classify and
// /v1/embeddings); a write key may call every route. With no key at all
// the API is open (and has only the default tenant). Read and Write are the
// default tenant's keys; Tenants holds the keys of named tenants (see
// package internal/tenant), whose callers reach their own tenant's memory
// only.
type APIKeys = tenant.Keys

// TenantKeys are one named tenant's keys.
type TenantKeys = tenant.KeyPair

// MinAPIKeyLength is the shortest key ParseAPIKeys accepts.
const MinAPIKeyLength = tenant.MinKeyLength

// ParseAPIKeys parses the --api-keys flag / LEXSONA_API_KEYS value
// (tenant.ParseKeys): a comma-separated list of entries, each one of
//
//	read:KEY, write:KEY, KEY          a key of the default tenant (a bare KEY is a write key)
//	TENANT:read:KEY, TENANT:write:KEY a key of the named tenant TENANT
//
// Errors are EINVALID and name the entry by position, never the key itself.
func ParseAPIKeys(s string) (APIKeys, error) { return tenant.ParseKeys(s) }

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
