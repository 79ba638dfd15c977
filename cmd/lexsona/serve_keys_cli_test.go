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

// TestServeRefusesKeysOnCommandLine: --api-keys (visible to every local
// user in ps) is refused with a message naming the safer ways, unless
// --insecure-keys-on-command-line is given (then it warns); keys from
// LEXSONA_API_KEYS pass without a word. --max-conns 0, checked right after
// the keys, stops an accepted start before it listens.
func TestServeRefusesKeysOnCommandLine(t *testing.T) {
	const key = "write:w-0123456789abcdef0123"
	for _, tc := range []struct {
		name     string
		env      string
		args     []string
		want     []string
		dontWant []string
	}{
		{"refused", "", []string{"--api-keys", key},
			[]string{"--insecure-keys-on-command-line", "--api-keys-file", "LEXSONA_API_KEYS", "process list"}, []string{"max-conns", "w-0123"}},
		{"insecure flag", "", []string{"--api-keys", key, "--insecure-keys-on-command-line", "--max-conns", "0"},
			[]string{"--max-conns", "visible to every local user in the process list"}, []string{"w-0123"}},
		{"environment", key, []string{"--max-conns", "0"},
			[]string{"--max-conns"}, []string{"process list", "insecure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			t.Setenv("LEXSONA_API_KEYS", tc.env)
			t.Setenv("LEXSONA_API_KEYS_FILE", "")
			code, _, stderr := c.run(append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q: %s", w, stderr)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr says %q: %s", w, stderr)
				}
			}
		})
	}
}
