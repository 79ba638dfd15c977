package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// EmbeddingsVersionWithin sees this process's writes at once, and another
// handle's (another process's) once its cached read is older than maxAge.
func testEmbeddingsVersionWithin(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	MustCreate(t, db, "tool.x", "tool_preference", engine.Scope{})
	v0, err := db.EmbeddingsVersionWithin(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	MustCreate(t, db, "tool.y", "tool_preference", engine.Scope{})
	if v1, _ := db.EmbeddingsVersionWithin(ctx, time.Hour); v1 <= v0 {
		t.Fatalf("own write not seen: %d → %d", v0, v1)
	}
	v1, _ := db.EmbeddingsVersionWithin(ctx, time.Hour)
	other := Reopen(t, db)
	MustCreate(t, other, "tool.z", "tool_preference", engine.Scope{})
	if v, _ := db.EmbeddingsVersionWithin(ctx, time.Hour); v != v1 {
		t.Errorf("another handle's write seen before maxAge: %d → %d", v1, v)
	}
	if v, _ := db.EmbeddingsVersionWithin(ctx, 0); v <= v1 {
		t.Errorf("another handle's write not seen after maxAge: %d → %d", v1, v)
	}
}
