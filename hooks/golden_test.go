package hooks

import (
	"flag"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) { t.Helper(); testenv.Golden(t, name, got, *update) }

func mustRead(t *testing.T, path string) []byte { t.Helper(); return testenv.MustRead(t, path) }
