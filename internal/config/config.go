// Package config is LexSona's configuration from the environment: one
// typed Config holding every setting the LEXSONA_* variables (and the XDG,
// HOME and Hugging Face ones) give, read once by Load (env.go, the only file
// of LexSona outside the tests that reads the environment). The command
// line takes its flag defaults from it, so that a flag wins over its
// variable, which wins over the built-in default; the library packages get
// the values through their options and never read the environment.
package config

import (
	"path/filepath"

	"github.com/lexsona/lexsona/internal/datadir"
)

// Config is every setting LexSona takes from the environment. A string
// field is "" and a list nil when its variable is unset or empty; the
// methods compute the defaults that derive from several fields (the data
// folder, the database file, the Hugging Face cache).
type Config struct {
	// DB is LEXSONA_DB: the SQLite file or postgres:// URL to open (--db).
	// "" means DBPath's default, <DataDir()>/lexsona.db.
	DB string
	// Data is LEXSONA_DATA: the data folder (database, calibration files).
	// "" means UserDataDir(), else ./lexsona-data (DataDir).
	Data string
	// XDGDataHome is XDG_DATA_HOME: when absolute, the user's data folder is
	// <XDGDataHome>/lexsona (UserDataDir); "" or relative means
	// <Home>/.local/share/lexsona.
	XDGDataHome string
	// Home is the user's home folder (HOME; Load asks os.UserHomeDir): the
	// root of the default data folder and Hugging Face cache. "" means
	// there is none.
	Home string

	// Embedder is LEXSONA_EMBEDDER: the embedding backend, auto, ort, go or
	// lexical (--embedder). Default "auto".
	Embedder string
	// ModelDir is LEXSONA_MODEL_DIR: the model folder (--model-dir). ""
	// means the installed one, <UserDataDir()>/models/all-MiniLM-L6-v2.
	ModelDir string
	// ModelVariant is LEXSONA_MODEL_VARIANT: the model graph, fp32, int8,
	// auto or a published file's suffix (--variant). "" means fp32.
	ModelVariant string
	// ORTLib is LEXSONA_ORT_LIB: the ONNX Runtime library (--ort-lib). ""
	// means the library search of the ort package.
	ORTLib string
	// NoFuse is LEXSONA_ORT_FUSE=0: the ort backend runs the model's graph as
	// exported instead of its fused rewrite. Default false (any other value).
	NoFuse bool

	// Registry is LEXSONA_REGISTRY: a YAML rule registry to sync before
	// classifying (--registry). Default "": the registries in force.
	Registry string
	// Debug is LEXSONA_LOG=debug (in any case): diagnostics are whole
	// structured records, as with --verbose. Default false.
	Debug bool
	// Tenant is LEXSONA_TENANT: the tenant whose memory a command works on
	// (--tenant). Default "": the default tenant.
	Tenant string

	// Addr is LEXSONA_ADDR: the address lexsona serve listens on (--addr)
	// and `hooks install` looks for a running service at (--server). ""
	// means server.DefaultAddr, 127.0.0.1:8080.
	Addr string
	// APIKey is LEXSONA_API_KEY: the key a client (the hooks' drainer)
	// sends a service that requires one.
	APIKey string
	// APIKeys is LEXSONA_API_KEYS: the service's API keys, like
	// read:KEY1,write:KEY2 (--api-keys). Default "": no keys, no auth.
	APIKeys string
	// APIKeysFile is LEXSONA_API_KEYS_FILE: the file of the service's API
	// keys (--api-keys-file). Default "": none.
	APIKeysFile string
	// AllowedHosts is LEXSONA_ALLOWED_HOSTS, comma-separated: extra Host
	// names the service accepts on a loopback address (--allowed-hosts).
	// Default none.
	AllowedHosts []string
	// HookRoots is LEXSONA_HOOK_ROOTS, comma-separated: folders the hook
	// route may read a project's files under (--hook-root). Default none.
	HookRoots []string
	// ShareRegistries is LEXSONA_SHARE_REGISTRY, comma-separated: registries
	// shared read-only with other tenants, OWNER/NAME=TENANT[+TENANT…]
	// (--share-registry). Default none.
	ShareRegistries []string
	// HookNotes is LEXSONA_HOOK_NOTES: what the hooks tell the agent about
	// corrections waiting for review, session, off or ask (--notes,
	// --hook-notes). "" means hooks.NotesSession.
	HookNotes string
	// IdempotencyTTL is LEXSONA_IDEMPOTENCY_TTL: how long an idempotency key
	// is remembered, a duration or "never" (--idempotency-ttl). "" means
	// server.DefaultIdempotencyTTL.
	IdempotencyTTL string

	// HFHubCache is HF_HUB_CACHE: the Hugging Face hub cache folder
	// (HFHubDir). Default "".
	HFHubCache string
	// HFHome is HF_HOME: the Hugging Face home, whose hub/ is the hub cache
	// when HF_HUB_CACHE is unset (HFHubDir). Default "".
	HFHome string
	// XDGCacheHome is XDG_CACHE_HOME: when absolute, the hub cache is
	// <XDGCacheHome>/huggingface/hub when neither HF variable is set
	// (HFHubDir). Default "".
	XDGCacheHome string
}

// UserDataDir is the user's own data folder, where `make install` copies the
// model and ONNX Runtime and where they are looked for whatever Data says:
// datadir.User(XDGDataHome, Home) ("" with no home folder and no absolute
// XDG_DATA_HOME).
func (c Config) UserDataDir() string {
	return datadir.User(c.XDGDataHome, c.Home)
}

// DataDir is the data folder: Data, else UserDataDir(), else ./lexsona-data
// (datadir.Dir).
func (c Config) DataDir() string {
	return datadir.Dir(c.Data, c.UserDataDir())
}

// DBPath is the database LexSona opens when --db is not given: DB, else
// <DataDir()>/lexsona.db.
func (c Config) DBPath() string {
	if c.DB != "" {
		return c.DB
	}
	return filepath.Join(c.DataDir(), datadir.DBFile)
}

// CalibrationDir is the folder of the calibration files `lexsona eval
// calibrate` writes and the classifier reads: <DataDir()>/calibration.
func (c Config) CalibrationDir() string {
	return datadir.Calibration(c.DataDir())
}

// HFHubDir is the Hugging Face hub cache folder: HFHubCache, else
// <HFHome>/hub, else <XDGCacheHome>/huggingface/hub when XDGCacheHome is
// absolute, else <Home>/.cache/huggingface/hub; "" when none of these can
// be named.
func (c Config) HFHubDir() string {
	switch {
	case c.HFHubCache != "":
		return c.HFHubCache
	case c.HFHome != "":
		return filepath.Join(c.HFHome, "hub")
	case c.XDGCacheHome != "" && filepath.IsAbs(c.XDGCacheHome):
		return filepath.Join(c.XDGCacheHome, "huggingface", "hub")
	case c.Home != "":
		return filepath.Join(c.Home, ".cache", "huggingface", "hub")
	}
	return ""
}
