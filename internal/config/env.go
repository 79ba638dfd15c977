package config

import (
	"cmp"
	"os"
	"strings"
)

// Lookup gets an environment variable's value and whether it is set, as
// os.LookupEnv does.
type Lookup func(key string) (string, bool)

// Load reads the process's environment into a Config (Read with
// os.LookupEnv), the home folder as os.UserHomeDir names it. The command
// line calls it once, at start; nothing else in LexSona reads the
// environment.
func Load() Config {
	c := Read(os.LookupEnv)
	c.Home, _ = os.UserHomeDir() // $HOME on Unix; "" when there is none
	return c
}

// Read makes the Config the variables lookup gives: each field from its
// variable (see Config), an empty value counting as unset, the lists split
// on commas with their items trimmed and empty ones dropped, Embedder
// "auto" when unset.
func Read(lookup Lookup) Config {
	get := func(key string) string {
		v, _ := lookup(key)
		return v
	}
	return Config{
		DB:          get("LEXSONA_DB"),
		Data:        get("LEXSONA_DATA"),
		XDGDataHome: get("XDG_DATA_HOME"),
		Home:        get("HOME"),

		Embedder:     cmp.Or(get("LEXSONA_EMBEDDER"), "auto"),
		ModelDir:     get("LEXSONA_MODEL_DIR"),
		ModelVariant: get("LEXSONA_MODEL_VARIANT"),
		ORTLib:       get("LEXSONA_ORT_LIB"),
		NoFuse:       get("LEXSONA_ORT_FUSE") == "0",

		Registry: get("LEXSONA_REGISTRY"),
		Debug:    strings.EqualFold(get("LEXSONA_LOG"), "debug"),
		Tenant:   get("LEXSONA_TENANT"),

		Addr:            get("LEXSONA_ADDR"),
		APIKey:          get("LEXSONA_API_KEY"),
		APIKeys:         get("LEXSONA_API_KEYS"),
		APIKeysFile:     get("LEXSONA_API_KEYS_FILE"),
		AllowedHosts:    splitList(get("LEXSONA_ALLOWED_HOSTS")),
		HookRoots:       splitList(get("LEXSONA_HOOK_ROOTS")),
		ShareRegistries: splitList(get("LEXSONA_SHARE_REGISTRY")),
		HookNotes:       get("LEXSONA_HOOK_NOTES"),
		IdempotencyTTL:  get("LEXSONA_IDEMPOTENCY_TTL"),

		HFHubCache:   get("HF_HUB_CACHE"),
		HFHome:       get("HF_HOME"),
		XDGCacheHome: get("XDG_CACHE_HOME"),
	}
}

// splitList splits a comma-separated value into its trimmed, non-empty
// items (nil for "").
func splitList(v string) []string {
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
