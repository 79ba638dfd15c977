package main

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/lexsona/lexsona/internal/config"
	"github.com/lexsona/lexsona/internal/setup"
	"github.com/lexsona/lexsona/models"
)

// configFrom is the configuration env gives (config.Read over a map).
func configFrom(env map[string]string) config.Config {
	return config.Read(func(key string) (string, bool) {
		v, ok := env[key]
		return v, ok
	})
}

// TestGlobalFlagsOverConfig: the composition root gets a flag's value, else
// its variable's, else the default; a flag given empty is its variable's
// value, as the library packages used to read it; the data folder, the
// installed folder, the Hugging Face cache and LEXSONA_ORT_FUSE come from
// the environment alone.
func TestGlobalFlagsOverConfig(t *testing.T) {
	env := map[string]string{
		"HOME": "/home/u", "LEXSONA_EMBEDDER": "go", "LEXSONA_MODEL_DIR": "/m", "LEXSONA_MODEL_VARIANT": "int8",
		"LEXSONA_ORT_LIB": "/env/libonnxruntime.so.1", "LEXSONA_ORT_FUSE": "0", "LEXSONA_DATA": "/data", "XDG_DATA_HOME": "/xdg",
		"HF_HOME": "/hf", "LEXSONA_REGISTRY": "team.yaml",
	}
	fromEnv := setup.Config{DB: "/data/lexsona.db", CalibrationDir: "/data/calibration", Registry: "team.yaml",
		Embedder: models.Options{Backend: "go", ModelDir: "/m", Variant: "int8", OrtLib: "/env/libonnxruntime.so.1", OrtLibEnv: "/env/libonnxruntime.so.1",
			InstallDir: "/xdg/lexsona", HFHubDir: "/hf/hub", NoFuse: true}}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want setup.Config
	}{
		{"defaults", map[string]string{"HOME": "/home/u"}, nil, setup.Config{
			DB: "/home/u/.local/share/lexsona/lexsona.db", CalibrationDir: "/home/u/.local/share/lexsona/calibration",
			Embedder: models.Options{Backend: "auto", InstallDir: "/home/u/.local/share/lexsona", HFHubDir: "/home/u/.cache/huggingface/hub"}}},
		{"the variables", env, nil, fromEnv},
		{"LEXSONA_DB", map[string]string{"HOME": "/home/u", "LEXSONA_DB": "postgres://h/db"}, nil, setup.Config{
			DB: "postgres://h/db", CalibrationDir: "/home/u/.local/share/lexsona/calibration",
			Embedder: models.Options{Backend: "auto", InstallDir: "/home/u/.local/share/lexsona", HFHubDir: "/home/u/.cache/huggingface/hub"}}},
		{"the flags win", env, []string{"--db", "/d.db", "--embedder", "lexical", "--model-dir", "/f", "--variant", "fp32", "--ort-lib", "/x.so", "--registry", "r.yaml"}, setup.Config{
			DB: "/d.db", CalibrationDir: "/data/calibration", Registry: "r.yaml",
			Embedder: models.Options{Backend: "lexical", ModelDir: "/f", Variant: "fp32", OrtLib: "/x.so", OrtLibEnv: "/env/libonnxruntime.so.1",
				InstallDir: "/xdg/lexsona", HFHubDir: "/hf/hub", NoFuse: true}}},
		{"empty flags: the variables", env, []string{"--db=", "--embedder=", "--variant=", "--ort-lib="}, setup.Config{
			DB: "/data/lexsona.db", CalibrationDir: "/data/calibration", Registry: "team.yaml",
			Embedder: models.Options{Backend: "go", ModelDir: "/m", Variant: "int8", OrtLibEnv: "/env/libonnxruntime.so.1",
				InstallDir: "/xdg/lexsona", HFHubDir: "/hf/hub", NoFuse: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cfg: configFrom(tt.env)}
			root := newRoot(a)
			if err := root.ParseFlags(tt.args); err != nil {
				t.Fatal(err)
			}
			got := a.setupConfig()
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(setup.Config{}, "Progress", "Logger"), cmpopts.IgnoreFields(models.Options{}, "Logger")); d != "" {
				t.Errorf("setupConfig (-want +got):\n%s", d)
			}
		})
	}
}

// TestFlagDefaultsFromConfig: the flags of serve, mcp, hook and hooks
// install default to their variables (shown so in --help), else to the
// built-in defaults.
func TestFlagDefaultsFromConfig(t *testing.T) {
	env := map[string]string{
		"LEXSONA_ADDR": "127.0.0.1:9999", "LEXSONA_API_KEYS": "read:K", "LEXSONA_API_KEYS_FILE": "/keys",
		"LEXSONA_ALLOWED_HOSTS": "proxy.local, other.local", "LEXSONA_HOOK_ROOTS": "/src", "LEXSONA_HOOK_NOTES": "ask",
		"LEXSONA_SHARE_REGISTRY": "default/team=alice+bob", "LEXSONA_IDEMPOTENCY_TTL": "48h",
	}
	tests := []struct {
		cmd, flag, def, fromEnv string
	}{
		{"serve", "addr", "127.0.0.1:8080", "127.0.0.1:9999"},
		{"serve", "api-keys", "", "read:K"},
		{"serve", "api-keys-file", "", "/keys"},
		{"serve", "allowed-hosts", "[]", "[proxy.local,other.local]"},
		{"serve", "hook-root", "[]", "[/src]"},
		{"serve", "hook-notes", "session", "ask"},
		{"serve", "share-registry", "[]", "[default/team=alice+bob]"},
		{"serve", "idempotency-ttl", "24h0m0s", "48h"},
		{"mcp", "idempotency-ttl", "24h0m0s", "48h"},
		{"hook", "notes", "session", "ask"},
		{"hooks install", "server", "127.0.0.1:8080", "127.0.0.1:9999"},
	}
	for _, tt := range tests {
		for _, withEnv := range []bool{false, true} {
			cfg, want := configFrom(nil), tt.def
			if withEnv {
				cfg, want = configFrom(env), tt.fromEnv
			}
			root := newRoot(&app{cfg: cfg})
			c, _, err := root.Find(strings.Fields(tt.cmd))
			if err != nil {
				t.Fatal(err)
			}
			f := c.Flags().Lookup(tt.flag)
			if f == nil {
				t.Fatalf("%s has no --%s", tt.cmd, tt.flag)
			}
			if f.DefValue != want || f.Value.String() != want {
				t.Errorf("%s --%s with the variables %v: default %q, value %q; want %q", tt.cmd, tt.flag, withEnv, f.DefValue, f.Value.String(), want)
			}
		}
	}
}
