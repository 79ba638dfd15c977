package storetest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/store"
)

// testConfigRows: the config is the defaults with the stored overrides
// applied in key order; a deleted override is gone, deleting a missing one
// is no error, and an override the engine refuses is an internal error
// naming it.
func testConfigRows(t *testing.T, open Opener) {
	db := open(t)
	ctx := context.Background()
	cfg, err := db.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(engine.DefaultConfig(), cfg); diff != "" {
		t.Errorf("fresh config (-default +got):\n%s", diff)
	}
	put := func(kv ...string) error {
		return db.Write(ctx, T0, func(tx *store.Tx) error {
			for i := 0; i < len(kv); i += 2 {
				if err := tx.PutConfig(kv[i], kv[i+1]); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := put("n_min", "7", "c_min", "0.8", "n_min", "9"); err != nil {
		t.Fatal(err)
	}
	want := engine.DefaultConfig()
	want.Default.NMin, want.Default.CMin = 9, 0.8
	if got, err := db.Config(ctx); err != nil || !cmp.Equal(want, got) {
		t.Errorf("config %+v, %v: want %+v", got, err, want)
	}
	err = db.Write(ctx, T0, func(tx *store.Tx) error {
		if err := tx.DeleteConfig("n_min"); err != nil {
			return err
		}
		return tx.DeleteConfig("tau_days")
	})
	if err != nil {
		t.Fatal(err)
	}
	want.Default.NMin = engine.DefaultConfig().Default.NMin
	if got, err := db.Config(ctx); err != nil || !cmp.Equal(want, got) {
		t.Errorf("after delete: config %+v, %v: want %+v", got, err, want)
	}
	if err := put("c_min", "lots"); err != nil {
		t.Fatal(err)
	}
	_, err = db.Config(ctx)
	if engine.ErrorCode(err) != engine.EINTERNAL || !strings.Contains(err.Error(), `c_min="lots"`) {
		t.Errorf("config with a bad stored override: %v, want an internal error naming it", err)
	}
}
