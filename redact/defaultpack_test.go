package redact_test

import (
	"bytes"
	"testing"

	"github.com/lexsona/lexsona/redact"
	"github.com/lexsona/lexsona/registry"
)

// TestYAMLKeepsDefaultPack redacts LexSona's default rule pack, hundreds of
// corrections as people word them (passwords, tokens and keys spoken of,
// sed and git commands): not one of them is a secret, so the pack comes
// back byte for byte.
func TestYAMLKeepsDefaultPack(t *testing.T) {
	pack := registry.DefaultYAML()
	if got, n := redact.YAML(pack); n != 0 || !bytes.Equal(got, pack) {
		t.Fatalf("the default pack lost %d texts to redaction", n)
	}
}
