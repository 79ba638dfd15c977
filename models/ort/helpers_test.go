package ort

import (
	"testing"

	"github.com/lexsona/lexsona/internal/testenv"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// usable is the ONNX Runtime library the tests use, when it is usable.
func usable() (string, error) {
	lib, _, _, err := Usable("", testenv.ORTLib(), "")
	return lib, err
}

// mustLib returns the ONNX Runtime library, or skips the test naming `make
// ort` (fails it under LEXSONA_REQUIRE_ORT=1).
func mustLib(tb testing.TB) string {
	tb.Helper()
	return modeltest.MustORTLib(tb, usable)
}

// open opens dir's model as Open does for o (o.Variant as the user gives it,
// the library found unless o.OrtLib or $LEXSONA_ORT_LIB names one).
func open(dir string, o models.Options) (*Embedder, error) {
	o.Variant = models.RequestedVariant(o.Variant)
	folder, err := models.ResolveFolder(dir, models.FileVariant(o.Variant))
	if err != nil {
		return nil, err
	}
	lib, _, err := SearchLib(o.OrtLib, testenv.ORTLib(), "")
	if err != nil {
		return nil, err
	}
	return Open(folder, lib, o, o.Logger)
}

// mustOpen opens o.ModelDir's model, skipping the test when ONNX Runtime is
// unusable, and closes it when the test ends.
func mustOpen(tb testing.TB, o models.Options) *Embedder {
	tb.Helper()
	mustLib(tb)
	e, err := open(o.ModelDir, o)
	if err != nil {
		tb.Fatalf("Open(%+v): %v", o, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}
