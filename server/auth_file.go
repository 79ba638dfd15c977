package server

import "github.com/lexsona/lexsona/internal/tenant"

// LoadAPIKeysFile reads API keys from the file at path (tenant.LoadKeysFile):
// entries as ParseAPIKeys takes them, one per line or comma-separated, with
// blank lines and lines starting with # ignored; on Unix the file must be
// readable by its owner only. Errors are EINVALID: the file cannot be read,
// its mode lets others in, it is larger than 1 MiB, or an entry is
// malformed (named by its line, never by its key).
func LoadAPIKeysFile(path string) (APIKeys, error) { return tenant.LoadKeysFile(path) }

// APIKeysOnCommandLineRefusal is what `lexsona serve` answers to keys given
// with --api-keys without --insecure-keys-on-command-line.
const APIKeysOnCommandLineRefusal = "--api-keys puts the API keys in the process list, where every local user can read them (ps): " +
	"put them in a file given with --api-keys-file FILE (mode 0600; env LEXSONA_API_KEYS_FILE) or in the LEXSONA_API_KEYS environment variable; " +
	"to give them on the command line anyway, add --insecure-keys-on-command-line"

// APIKeysOnCommandLineWarning is what `lexsona serve` logs when keys come
// with --api-keys and --insecure-keys-on-command-line.
const APIKeysOnCommandLineWarning = "API keys given with --api-keys are visible to every local user in the process list: " +
	"put them in the LEXSONA_API_KEYS environment variable or in a file given with --api-keys-file (mode 0600)"
