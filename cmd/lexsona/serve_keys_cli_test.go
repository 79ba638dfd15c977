package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeBadAPIKeysFileMessage: a malformed keys file is a usage error
// (exit 2) whose message says what is wrong in plain words, without the
// error code in front of it ("invalid: …").
func TestServeBadAPIKeysFileMessage(t *testing.T) {
	c := newCLI(t)
	keys := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keys, []byte("alice:admin:alice-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := c.run("serve", "--addr", "127.0.0.1:0", "--api-keys-file", keys)
	if code != 2 || !strings.HasPrefix(stderr, "lexsona: the API keys file "+keys+": line 1: ") {
		t.Fatalf("serve with a bad keys file: exit %d, stderr %q; want 2 and \"lexsona: the API keys file %s: line 1: …\"", code, stderr, keys)
	}
}
