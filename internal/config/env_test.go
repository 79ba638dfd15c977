package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapLookup is a Lookup over a map, as os.LookupEnv is over the process's
// environment.
func mapLookup(env map[string]string) Lookup {
	return func(key string) (string, bool) {
		v, ok := env[key]
		return v, ok
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Config
	}{
		{"nothing set: the defaults", nil, Config{Embedder: "auto"}},
		{"every string variable", map[string]string{
			"LEXSONA_DB": "/db/l.db", "LEXSONA_DATA": "/data", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u",
			"LEXSONA_EMBEDDER": "ort", "LEXSONA_MODEL_DIR": "/m", "LEXSONA_MODEL_VARIANT": "int8", "LEXSONA_ORT_LIB": "/lib/ort.so",
			"LEXSONA_REGISTRY": "team.yaml", "LEXSONA_TENANT": "alice",
			"LEXSONA_ADDR": "127.0.0.1:9", "LEXSONA_API_KEYS": "read:K1,write:K2", "LEXSONA_API_KEYS_FILE": "/keys",
			"LEXSONA_HOOK_NOTES": "ask", "LEXSONA_IDEMPOTENCY_TTL": "48h",
			"HF_HUB_CACHE": "/hf/hub", "HF_HOME": "/hf", "XDG_CACHE_HOME": "/cache",
		}, Config{
			DB: "/db/l.db", Data: "/data", XDGDataHome: "/xdg", Home: "/home/u",
			Embedder: "ort", ModelDir: "/m", ModelVariant: "int8", ORTLib: "/lib/ort.so",
			Registry: "team.yaml", Tenant: "alice",
			Addr: "127.0.0.1:9", APIKeys: "read:K1,write:K2", APIKeysFile: "/keys",
			HookNotes: "ask", IdempotencyTTL: "48h",
			HFHubCache: "/hf/hub", HFHome: "/hf", XDGCacheHome: "/cache",
		}},
		{"empty values are unset", map[string]string{"LEXSONA_EMBEDDER": "", "LEXSONA_DB": "", "LEXSONA_ALLOWED_HOSTS": ""},
			Config{Embedder: "auto"}},
		{"lists: split on commas, trimmed, empty items dropped", map[string]string{
			"LEXSONA_ALLOWED_HOSTS":  "proxy.local, lexsona.internal ,",
			"LEXSONA_HOOK_ROOTS":     "/src",
			"LEXSONA_SHARE_REGISTRY": " default/team=alice+bob , ,default/ops=carol",
		}, Config{Embedder: "auto", AllowedHosts: []string{"proxy.local", "lexsona.internal"}, HookRoots: []string{"/src"},
			ShareRegistries: []string{"default/team=alice+bob", "default/ops=carol"}}},
		{"LEXSONA_ORT_FUSE=0 turns fusing off", map[string]string{"LEXSONA_ORT_FUSE": "0"}, Config{Embedder: "auto", NoFuse: true}},
		{"any other LEXSONA_ORT_FUSE keeps it", map[string]string{"LEXSONA_ORT_FUSE": "1"}, Config{Embedder: "auto"}},
		{"LEXSONA_LOG=debug in any case", map[string]string{"LEXSONA_LOG": "DeBuG"}, Config{Embedder: "auto", Debug: true}},
		{"another LEXSONA_LOG is not debug", map[string]string{"LEXSONA_LOG": "info"}, Config{Embedder: "auto"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Read(mapLookup(tt.env))); d != "" {
				t.Errorf("Read (-want +got):\n%s", d)
			}
		})
	}
}

// TestLoad: Load reads the process's environment.
func TestLoad(t *testing.T) {
	t.Setenv("LEXSONA_MODEL_VARIANT", "int8")
	t.Setenv("LEXSONA_HOOK_ROOTS", "/a,/b")
	t.Setenv("HOME", "/home/loaded")
	c := Load()
	if c.ModelVariant != "int8" || !cmp.Equal(c.HookRoots, []string{"/a", "/b"}) || c.Home != "/home/loaded" {
		t.Errorf("Load() = %+v", c)
	}
}
