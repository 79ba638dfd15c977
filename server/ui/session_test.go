package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// TestSessionTenantMustHaveAKey: a session is honoured only for a tenant
// some key belongs to, at the level it was signed with, and its CSRF token
// is valid for that tenant only.
func TestSessionTenantMustHaveAKey(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var asked []string
	u := New(Config{
		Keys: []Key{{Token: "alice-write-0123456789a", Write: true, Tenant: "alice"}, {Token: "op-read-0123456789abcd"}},
		MemoryFor: func(_ context.Context, name string) (Memory, error) {
			asked = append(asked, name)
			return nil, engine.Errorf(engine.EUNAVAILABLE, "no memory in this test")
		},
		Now: func() time.Time { return now },
	})
	for _, c := range []struct {
		name      string
		ss        session
		wantLogin bool
	}{
		{"alice", u.sess.issue(accessWrite, "alice"), false},
		{"the default tenant", u.sess.issue(accessRead, ""), false},
		{"a tenant without a key", u.sess.issue(accessWrite, "mallory"), true},
		{"no access", u.sess.issue(accessNone, "alice"), true},
		{"expired", session{id: "abc", level: accessWrite, tenant: "alice", expires: now.Add(-time.Second)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			asked = nil
			req := httptest.NewRequest(http.MethodGet, "/rules", nil)
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: u.sess.encode(c.ss)})
			rec := httptest.NewRecorder()
			u.ServeHTTP(rec, req)
			if c.wantLogin {
				if rec.Code != http.StatusSeeOther || len(asked) != 0 {
					t.Fatalf("status %d, memories asked %v; want 303 to the login, none asked", rec.Code, asked)
				}
				return
			}
			// The tenant's memory is asked for (and its error shown).
			if rec.Code != http.StatusServiceUnavailable || len(asked) != 1 || asked[0] != tenantOrDefault(c.ss.tenant) {
				t.Fatalf("status %d, memories asked %v; want 503 from tenant %s's", rec.Code, asked, tenantOrDefault(c.ss.tenant))
			}
		})
	}
	a, b := u.sess.issue(accessWrite, "alice"), u.sess.issue(accessWrite, "alice")
	b.id = a.id
	b.tenant = "bob"
	if u.sess.checkCSRF(b, u.sess.csrf(a)) || !u.sess.checkCSRF(a, u.sess.csrf(a)) {
		t.Error("a CSRF token must hold for its own session's tenant only")
	}
}

// TestRevokedSessionsBounded: a revoked session's cookie is refused while
// others stand; revocations are forgotten once their sessions have expired,
// and when maxRevoked unexpired ones are held, the key is renewed, so that
// every cookie signed before is refused rather than any revoked one honoured.
func TestRevokedSessionsBounded(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := newSessions(time.Hour, func() time.Time { return now })
	a, b := s.issue(accessWrite, "alice"), s.issue(accessRead, "")
	ca, cb := s.encode(a), s.encode(b)
	s.revoke(a)
	if _, ok := s.decode(ca); ok {
		t.Error("a revoked session's cookie is honoured")
	}
	if _, ok := s.decode(cb); !ok {
		t.Fatal("revoking one session ended another")
	}
	for range maxRevoked - 1 {
		s.revoke(s.issue(accessRead, ""))
	}
	now = now.Add(2 * time.Hour) // every revoked session has expired
	c := s.issue(accessRead, "")
	s.revoke(s.issue(accessRead, "")) // forgets the expired ones
	if n := len(s.revoked); n != 1 {
		t.Errorf("%d revocations held after the others expired, want 1", n)
	}
	cc := s.encode(c)
	if _, ok := s.decode(cc); !ok {
		t.Fatal("forgetting expired revocations ended a live session")
	}
	for range maxRevoked - 1 {
		s.revoke(s.issue(accessRead, ""))
	}
	s.revoke(s.issue(accessRead, "")) // one too many: the key is renewed
	if _, ok := s.decode(cc); ok {
		t.Error("a cookie signed before the key was renewed is honoured")
	}
	if _, ok := s.decode(s.encode(s.issue(accessRead, ""))); !ok {
		t.Error("a session issued after the renewal is refused")
	}
	if n := len(s.revoked); n != 0 {
		t.Errorf("%d revocations held after the key was renewed, want 0", n)
	}
}
