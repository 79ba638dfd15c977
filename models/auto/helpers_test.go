package auto

import (
	"context"
	"log/slog"
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/ort"
)

// ortUsable is the ONNX Runtime library the tests use, when it is usable.
func ortUsable() (string, error) {
	lib, _, _, err := ort.Usable("", testenv.ORTLib(), "")
	return lib, err
}

// mustOpen opens an embedder, logging nowhere unless o.Logger is set, and
// closes it when the test ends.
func mustOpen(tb testing.TB, o models.Options) models.Embedder {
	tb.Helper()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	e, err := Open(context.Background(), o)
	if err != nil {
		tb.Fatalf("Open(%+v): %v", o, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}
