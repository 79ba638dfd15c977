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
	"time"
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
type keyring struct{ read, write [][32]byte }

func newKeyring(read, write []string) *keyring {
	k := &keyring{}
	for _, key := range read {
		k.read = append(k.read, sha256.Sum256([]byte(key)))
	}
	for _, key := range write {
		k.write = append(k.write, sha256.Sum256([]byte(key)))
	}
	return k
}

func (k *keyring) empty() bool { return len(k.read) == 0 && len(k.write) == 0 }

// level is the access key grants; every configured key is compared.
func (k *keyring) level(key string) access {
	d := sha256.Sum256([]byte(key))
	var read, write int
	for i := range k.write {
		write |= subtle.ConstantTimeCompare(d[:], k.write[i][:])
	}
	for i := range k.read {
		read |= subtle.ConstantTimeCompare(d[:], k.read[i][:])
	}
	switch {
	case write == 1:
		return accessWrite
	case read == 1:
		return accessRead
	}
	return accessNone
}

// Cookie names: the session, and the pre-login session the login form's
// CSRF token is tied to (kept apart so that a visit without the session
// cookie never overwrites a login).
const (
	sessionCookie = "lexsona_session"
	loginCookie   = "lexsona_login"
)

// session is what a cookie carries: a random id, the access granted and
// when it expires. The cookie is "payload.mac", the MAC an HMAC-SHA256 of
// the payload under a key made at start-up, so a restart (perhaps with other
// keys) ends every session.
type session struct {
	id      string
	level   access
	expires time.Time
}

// sessions signs and checks session cookies.
type sessions struct {
	key [32]byte
	ttl time.Duration
	now func() time.Time
}

func newSessions(ttl time.Duration, now func() time.Time) *sessions {
	s := &sessions{ttl: ttl, now: now}
	if _, err := rand.Read(s.key[:]); err != nil {
		panic("ui: no random bytes for the session key: " + err.Error())
	}
	return s
}

// issue makes a new session (a fresh id) with level.
func (s *sessions) issue(level access) session {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		panic("ui: no random bytes for a session id: " + err.Error())
	}
	return session{id: hex.EncodeToString(id[:]), level: level, expires: s.now().Add(s.ttl)}
}

func (s *sessions) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(strings.Join(parts, "|")))
	return m.Sum(nil)
}

func (s *sessions) encode(ss session) string {
	payload := fmt.Sprintf("v1|%s|%s|%d", ss.id, ss.level, ss.expires.Unix())
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(s.mac("session", payload))
}

// decode returns the session of a cookie value; ok is false for one that
// is malformed, forged or expired.
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
	if len(f) != 4 || f[0] != "v1" || f[1] == "" {
		return session{}, false
	}
	lvl, ok := parseAccess(f[2])
	exp, err := strconv.ParseInt(f[3], 10, 64)
	if !ok || err != nil || !s.now().Before(time.Unix(exp, 0)) {
		return session{}, false
	}
	return session{id: f[1], level: lvl, expires: time.Unix(exp, 0)}, true
}

// csrf is the form token of a session: an HMAC of its id, so it is only
// valid with that session's cookie.
func (s *sessions) csrf(ss session) string {
	return base64.RawURLEncoding.EncodeToString(s.mac("csrf", ss.id))
}

// checkCSRF reports whether token is the token of ss.
func (s *sessions) checkCSRF(ss session, token string) bool {
	got, err := base64.RawURLEncoding.DecodeString(token)
	return err == nil && token != "" && hmac.Equal(got, s.mac("csrf", ss.id))
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
