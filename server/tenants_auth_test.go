package server

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/internal/tenant"
	"github.com/lexsona/lexsona/models/lexical"
)

func TestParseAPIKeysTenants(t *testing.T) {
	const k1, k2, k3 = "k1-0123456789abcdef", "k2-0123456789abcdef", "k3-0123456789abcdef"
	for _, c := range []struct {
		in      string
		want    APIKeys
		wantErr string
	}{
		{in: "alice:write:" + k1 + ",alice:read:" + k2, want: APIKeys{Tenants: map[string]TenantKeys{"alice": {Read: []string{k2}, Write: []string{k1}}}}},
		{in: "read:" + k1 + ",bob:write:" + k2 + "," + k3, want: APIKeys{Read: []string{k1}, Write: []string{k3}, Tenants: map[string]TenantKeys{"bob": {Write: []string{k2}}}}},
		{in: "default:read:" + k1, want: APIKeys{Read: []string{k1}}},
		// A key with a colon after its access stays the default tenant's.
		{in: "read:alice:" + k1, want: APIKeys{Read: []string{"alice:" + k1}}},
		{in: "alice:admin:" + k1, wantErr: `entry 1: unknown kind "admin"`},
		{in: "Alice:read:" + k1, wantErr: `entry 1: tenant name "Alice": use lower-case letters`},
		{in: "my-team:WRITE:" + k1, wantErr: `entry 1: tenant name "my-team": use lower-case letters`},
		{in: "Alice:" + k1, wantErr: `entry 1: unknown kind "Alice"`},
		{in: "alice:read:short", wantErr: "entry 1: the key is 5 characters long"},
		{in: "alice:read:" + k1 + ",bob:write:" + k1, wantErr: "entry 2: the key is given to tenant alice already and also to bob"},
		{in: "read:" + k1 + ",write:" + k1, want: APIKeys{Read: []string{k1}, Write: []string{k1}}},
	} {
		got, err := ParseAPIKeys(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseAPIKeys(%q) = %+v, %v; want an error with %q", c.in, got, err, c.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "0123456789abcdef") {
				t.Errorf("ParseAPIKeys(%q): the error shows the key: %v", c.in, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseAPIKeys(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func TestLoadAPIKeysFileTenants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("# operator\nwrite:" + opKey + "\n\nalice:write:" + aliceKey + "\nbob:write:" + bobKey + "\n")
	keys, err := LoadAPIKeysFile(path)
	if err != nil || !keys.Named() || !reflect.DeepEqual(keys.TenantNames(), []string{"alice", "bob"}) || len(keys.Write) != 1 {
		t.Fatalf("LoadAPIKeysFile = %+v, %v", keys, err)
	}
	write("write:" + opKey + "\n# a comment\nalice:wirte:" + aliceKey + "\n")
	if _, err := LoadAPIKeysFile(path); err == nil || !strings.Contains(err.Error(), "line 3: unknown kind \"wirte\"") || strings.Contains(err.Error(), aliceKey) {
		t.Errorf("a malformed line: %v", err)
	}
}

// TestKeyringTenants: a key resolves to its tenant and access.
func TestKeyringTenants(t *testing.T) {
	keys, err := ParseAPIKeys(tenantKeys)
	if err != nil {
		t.Fatal(err)
	}
	kr := newKeyring(keys)
	for tok, want := range map[string]struct {
		access int
		tenant string
	}{
		opKey: {accessWrite, tenant.Default}, aliceKey: {accessWrite, "alice"}, aliceRead: {accessRead, "alice"},
		bobKey: {accessWrite, "bob"}, "nobody-0123456789abcdef": {accessNone, ""},
	} {
		if a, n := kr.level(tok); a != want.access || n != want.tenant {
			t.Errorf("level(%q) = %d %q, want %d %q", tok, a, n, want.access, want.tenant)
		}
	}
}

// TestNewTenantConfig: keys of named tenants need tenant stores (and no
// operator key: the default tenant then has no key, and the review page
// serves each key its own tenant). The configuration is checked before
// any memory is built (newServer, which New runs first).
func TestNewTenantConfig(t *testing.T) {
	named, _ := ParseAPIKeys("alice:write:" + aliceKey)
	withOp, _ := ParseAPIKeys(tenantKeys)
	emb := lexical.New(0)
	for _, c := range []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"no tenant stores", Config{APIKeys: withOp}, "Config.Tenants is not set"},
		{"named tenants only, no tenant stores", Config{APIKeys: named}, "Config.Tenants is not set"},
		{"named tenants only", Config{APIKeys: named, Tenants: tenant.MemoryOpener{Stores: tenant.NewStores(filepath.Join(t.TempDir(), "x.db"), nil, time.Now)}}, ""},
	} {
		c.cfg.Embedder, c.cfg.Logger = emb, discardLogger()
		srv, err := newServer(c.cfg)
		if c.wantErr == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			} else if srv.batcher != nil {
				srv.batcher.Close()
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.wantErr) || engine.ErrorCode(err) != engine.EINVALID {
			t.Errorf("%s: newServer = %v, want EINVALID with %q", c.name, err, c.wantErr)
		}
	}
}

// TestTenantFirstRequestsTogether: many first requests of one tenant at
// once open its memory once, and all of them are answered from it.
func TestTenantFirstRequestsTogether(t *testing.T) {
	e := newTenantEnv(t, "sqlite", nil)
	const n = 16
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		go func() {
			st, b := e.Call(aliceKey, "GET", "/v1/rules?limit=1", "")
			if st != 200 {
				errs <- b
				return
			}
			errs <- ""
		}()
	}
	for i := 0; i < n; i++ {
		if b := <-errs; b != "" {
			t.Errorf("a first request: %s", b)
		}
	}
	if got := len(e.srv.mems.(tenantMemories).Opened()); got != 2 {
		t.Errorf("%d tenants open, want the default and alice", got)
	}
}
