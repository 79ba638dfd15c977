package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

func TestConfig(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	cfg, err := db.Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(engine.DefaultConfig(), cfg); diff != "" {
		t.Errorf("fresh config (-default +got):\n%s", diff)
	}
	want := engine.DefaultConfig()
	for _, kv := range [][2]string{
		{"category.deploy.c_min", "0.9"}, // created from the default thresholds (n_min 5)…
		{"n_min", "7"},                   // …which a later default change does not touch
		{"security_policy", ""},
		{"category.security_policy.tau_days", "90"},
	} {
		if kv[1] == "" {
			continue
		}
		if err := want.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
		if cfg, err = db.SetConfig(ctx, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("SetConfig result (-want +got):\n%s", diff)
	}
	stored, _ := db.Config(ctx)
	if diff := cmp.Diff(want, stored); diff != "" {
		t.Errorf("stored config (-want +got), replay must not depend on key order:\n%s", diff)
	}
	if stored.For("deploy").NMin != 5 {
		t.Errorf("deploy n_min %d, want 5", stored.For("deploy").NMin)
	}

	n := mustCount(t, db)
	for _, kv := range [][2]string{{"n_min", "-1"}, {"c_min", "lots"}, {"nope", "1"}, {"category.Bad.n_min", "1"}, {"max_rules", "0"}} {
		_, err := db.SetConfig(ctx, kv[0], kv[1])
		wantCode(t, err, engine.EINVALID)
	}
	if mustCount(t, db) != n {
		t.Error("a rejected SetConfig stored something")
	}

	cfg, err = db.ResetConfig(ctx, "n_min")
	if err != nil || cfg.Default.NMin != 5 {
		t.Errorf("after reset n_min = %d, %v", cfg.Default.NMin, err)
	}
}
