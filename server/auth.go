package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// APIKeys are the bearer tokens the API accepts. A read key may call every
// read route (GET, and POST /v1/classify and /v1/embeddings); a write key may
// call every route. With no key at all the API is open.
type APIKeys struct {
	Read  []string
	Write []string
}

// MinAPIKeyLength is the shortest key ParseAPIKeys accepts.
const MinAPIKeyLength = 16

// Empty reports whether no key is configured (the API is open).
func (k APIKeys) Empty() bool { return len(k.Read) == 0 && len(k.Write) == 0 }

// ParseAPIKeys parses the --api-keys flag / LEXSONA_API_KEYS value: a
// comma-separated list of "read:KEY" and "write:KEY" entries (a bare "KEY" is
// a write key), e.g. "read:r-0123456789abcdef,write:w-0123456789abcdef".
// White space around entries is ignored; "" means no keys. A key is at least
// MinAPIKeyLength characters of printable ASCII without spaces or commas.
// Errors are EINVALID and name the entry by position, never the key itself.
func ParseAPIKeys(s string) (APIKeys, error) {
	var k APIKeys
	if strings.TrimSpace(s) == "" {
		return k, nil
	}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		kind, key, ok := strings.Cut(entry, ":")
		if !ok {
			kind, key = "write", entry
		}
		if err := checkAPIKey(key); err != nil {
			return APIKeys{}, engine.Errorf(engine.EINVALID, "API key entry %d: %s", i+1, err.(*engine.Error).Message)
		}
		switch strings.ToLower(kind) {
		case "read":
			k.Read = append(k.Read, key)
		case "write":
			k.Write = append(k.Write, key)
		default:
			return APIKeys{}, engine.Errorf(engine.EINVALID, "API key entry %d: unknown kind %q: want read:KEY or write:KEY", i+1, kind)
		}
	}
	return k, nil
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
	read, write [][32]byte
}

func newKeyring(k APIKeys) *keyring {
	kr := &keyring{}
	for _, key := range k.Read {
		kr.read = append(kr.read, sha256.Sum256([]byte(key)))
	}
	for _, key := range k.Write {
		kr.write = append(kr.write, sha256.Sum256([]byte(key)))
	}
	return kr
}

func (kr *keyring) empty() bool { return len(kr.read) == 0 && len(kr.write) == 0 }

// level returns the access a presented token grants. Every configured key is
// compared (no early exit), each in constant time.
func (kr *keyring) level(token string) int {
	d := sha256.Sum256([]byte(token))
	var read, write int
	for i := range kr.write {
		write |= subtle.ConstantTimeCompare(d[:], kr.write[i][:])
	}
	for i := range kr.read {
		read |= subtle.ConstantTimeCompare(d[:], kr.read[i][:])
	}
	switch {
	case write == 1:
		return accessWrite
	case read == 1:
		return accessRead
	}
	return accessNone
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
// MetricsNeedKey): 401 without a key or with a wrong one, 403 for a read key
// on a write route.
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
		lvl := s.keys.level(tok)
		if lvl == accessNone {
			return &apiError{codeUnauthorized, "invalid API key"}
		}
		if lvl == accessRead && needsWrite(c.Request().Method, c.Path()) {
			return &apiError{codeForbidden, "this API key may only read: " + c.Request().Method + " " + c.Path() + " needs a write key"}
		}
		return next(c)
	}
}
