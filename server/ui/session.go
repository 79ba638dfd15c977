package ui

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lexsona/lexsona/internal/tenant"
)

// Access levels of a session.
type access int

const (
	accessNone access = iota
	accessRead
	accessWrite
)

func (a access) String() string {
	switch a {
	case accessRead:
		return "read"
	case accessWrite:
		return "write"
	}
	return "none"
}

func parseAccess(s string) (access, bool) {
	switch s {
	case "none":
		return accessNone, true
	case "read":
		return accessRead, true
	case "write":
		return accessWrite, true
	}
	return accessNone, false
}

// keyring holds sha256 digests of the API keys, compared in constant time.
type keyring struct{ keys []ringKey }

// ringKey is one key: its digest, the access it grants and its tenant.
type ringKey struct {
	digest [32]byte
	level  access
	tenant string
}

func newKeyring(keys []Key) *keyring {
	k := &keyring{}
	for _, key := range keys {
		lvl := accessRead
		if key.Write {
			lvl = accessWrite
		}
		k.keys = append(k.keys, ringKey{sha256.Sum256([]byte(key.Token)), lvl, tenantOrDefault(key.Tenant)})
	}
	return k
}

func (k *keyring) empty() bool { return len(k.keys) == 0 }

// level is the access key grants and the tenant it belongs to; every
// configured key is compared (no early exit), and a key given as both a
// read and a write key keeps write.
func (k *keyring) level(key string) (access, string) {
	d := sha256.Sum256([]byte(key))
	lvl, name := accessNone, ""
	for i := range k.keys {
		if subtle.ConstantTimeCompare(d[:], k.keys[i].digest[:]) == 1 && k.keys[i].level > lvl {
			lvl, name = k.keys[i].level, k.keys[i].tenant
		}
	}
	return lvl, name
}

// has reports whether some key belongs to tenant name.
func (k *keyring) has(name string) bool {
	for i := range k.keys {
		if k.keys[i].tenant == name {
			return true
		}
	}
	return false
}

// named reports whether some key belongs to a tenant other than the default.
func (k *keyring) named() bool {
	for i := range k.keys {
		if k.keys[i].tenant != tenant.Default {
			return true
		}
	}
	return false
}

// tenantOrDefault is name, or the default tenant for "".
func tenantOrDefault(name string) string {
	if name == "" {
		return tenant.Default
	}
	return name
}

// Cookie names: the session, and the pre-login session the login form's
// CSRF token is tied to (kept apart so that a visit without the session
// cookie never overwrites a login).
const (
	sessionCookie = "lexsona_session"
	loginCookie   = "lexsona_login"
)

// session is what a cookie carries: a random id, the access granted, the
// tenant whose memory it reads and writes, and when it expires. The cookie is "payload.mac", the MAC an HMAC-SHA256 of
// the payload under a key made at start-up, so a restart (perhaps with other
// keys) ends every session.
type session struct {
	id      string
	level   access
	tenant  string
	expires time.Time
}

// maxRevoked bounds the sessions revoked before their expiry that are
// remembered; past it the key is renewed, which ends every session.
const maxRevoked = 1 << 16

// sessions signs and checks session cookies, and remembers the sessions
// logged out of until they would have expired, so that a copy of a
// cookie kept after its logout is refused.
type sessions struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	key     [32]byte
	revoked map[string]time.Time // session id → its expiry
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	s := &sessions{ttl: ttl, now: now, revoked: map[string]time.Time{}}
	s.renewKey()
	return s
}

// renewKey draws a new signing key: every cookie signed before is refused.
// Callers hold mu, or own s.
func (s *sessions) renewKey() {
	if _, err := rand.Read(s.key[:]); err != nil {
		panic("ui: no random bytes for the session key: " + err.Error())
	}
}

// revoke ends ss before its expiry: its cookie is refused from now on.
// When maxRevoked revocations are remembered, the expired ones are
// forgotten; if none is, the key is renewed instead, ending every session.
func (s *sessions) revoke(ss session) {
	if ss.id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.revoked) >= maxRevoked {
		now := s.now()
		for id, exp := range s.revoked {
			if !now.Before(exp) {
				delete(s.revoked, id)
			}
		}
	}
	if len(s.revoked) >= maxRevoked {
		s.renewKey()
		clear(s.revoked)
		return
	}
	s.revoked[ss.id] = ss.expires
}

// isRevoked reports whether the session id was revoked.
func (s *sessions) isRevoked(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.revoked[id]
	return ok
}

// issue makes a new session (a fresh id) of tenant name with level.
func (s *sessions) issue(level access, name string) session {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		panic("ui: no random bytes for a session id: " + err.Error())
	}
	return session{id: hex.EncodeToString(id[:]), level: level, tenant: tenantOrDefault(name), expires: s.now().Add(s.ttl)}
}

func (s *sessions) mac(parts ...string) []byte {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(strings.Join(parts, "|")))
	return m.Sum(nil)
}

func (s *sessions) encode(ss session) string {
	payload := fmt.Sprintf("v2|%s|%s|%s|%d", ss.id, ss.level, ss.tenant, ss.expires.Unix())
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(s.mac("session", payload))
}

// decode returns the session of a cookie value; ok is false for one that
// is malformed, forged, expired or revoked.
func (s *sessions) decode(v string) (session, bool) {
	p64, m64, ok := strings.Cut(v, ".")
	if !ok {
		return session{}, false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p64)
	mac, err2 := base64.RawURLEncoding.DecodeString(m64)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac("session", string(payload))) {
		return session{}, false
	}
	f := strings.Split(string(payload), "|")
	if len(f) != 5 || f[0] != "v2" || f[1] == "" || f[3] == "" {
		return session{}, false
	}
	lvl, ok := parseAccess(f[2])
	exp, err := strconv.ParseInt(f[4], 10, 64)
	if !ok || err != nil || !s.now().Before(time.Unix(exp, 0)) || s.isRevoked(f[1]) {
		return session{}, false
	}
	return session{id: f[1], level: lvl, tenant: f[3], expires: time.Unix(exp, 0)}, true
}

// csrf is the form token of a session: an HMAC of its id and tenant, so it
// is only valid with that session's cookie.
func (s *sessions) csrf(ss session) string {
	return base64.RawURLEncoding.EncodeToString(s.mac("csrf", ss.id, ss.tenant))
}

// checkCSRF reports whether token is the token of ss.
func (s *sessions) checkCSRF(ss session, token string) bool {
	got, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil && token != "" && hmac.Equal(got, s.mac("csrf", ss.id, ss.tenant))
}

// read returns the session in cookie name of r, if valid.
func (s *sessions) read(r *http.Request, name string) (session, bool) {
	c, err := r.Cookie(name)
	if err != nil {
		return session{}, false
	}
	return s.decode(c.Value)
}

// set writes ss as cookie name: HttpOnly, SameSite=Strict, Secure over TLS.
func (s *sessions) set(w http.ResponseWriter, r *http.Request, name string, ss session) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: s.encode(ss), Path: "/", Expires: ss.expires, MaxAge: int(s.ttl.Seconds()),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
}

// clear deletes cookie name.
func clearCookie(w http.ResponseWriter, r *http.Request, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}
