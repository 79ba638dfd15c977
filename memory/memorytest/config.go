package memorytest

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/store/storetest"
)

// testSetConfig: SetConfig stores what replays to the same config in any
// key order, refuses a bad key or value naming it and storing nothing;
// ResetConfig gives a key its default again.
func testSetConfig(t *testing.T, open storetest.Opener) {
	db := open(t)
	ctx := context.Background()
	var cfg engine.Config
	var err error
	want := engine.DefaultConfig()
	// "c_min" sorts before "category.…": a store that kept only the keys
	// set would replay c_min 0.6 before creating deploy from it.
	for _, kv := range [][2]string{
		{"c_min", "0.8"},               // a default changed before…
		{"category.deploy.n_min", "9"}, // …a category is created from the defaults of that moment (c_min 0.8)…
		{"c_min", "0.6"},               // …which a later default change does not touch
		{"n_min", "7"},
		{"category.security_policy.tau_days", "90"},
	} {
		if err := want.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
		if cfg, err = memory.SetConfig(ctx, db, t0, kv[0], kv[1]); err != nil {
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
	if got := stored.For("deploy"); got.NMin != 9 || got.CMin != 0.8 || got.TauDays != engine.DefaultConfig().Default.TauDays {
		t.Errorf("deploy thresholds %+v, want n_min 9, c_min 0.8 and the default tau_days", got)
	}
	if got := stored.For("security_policy"); got.NMin != want.For("security_policy").NMin || got.TauDays != 90 {
		t.Errorf("security_policy thresholds %+v, want %+v", got, want.For("security_policy"))
	}

	n := storetest.MustCount(t, db)
	for _, tc := range []struct{ key, value, msg string }{
		{"n_min", "-1", "config n_min: -1 is out of range"},
		{"c_min", "lots", `config c_min: "lots" is not a finite number`},
		{"nope", "1", `unknown config key "nope": the keys are`},
		{"security_policy", "1", `unknown config key "security_policy"`},
		{"max_rulez", "3", `unknown config key "max_rulez" (did you mean "max_rules"?)`},
		{"category.Bad.n_min", "1", "lowercase category name"},
		{"category.securty_policy.n_min", "12", `did you mean "category.security_policy.n_min"?`},
		{"category.deply.n_min", "12", `did you mean "category.deploy.n_min"?`},
		{"max_rules", "0", "config max_rules: 0 is out of range"},
	} {
		_, err := memory.SetConfig(ctx, db, t0, tc.key, tc.value)
		storetest.WantCode(t, err, engine.EINVALID)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("SetConfig(%s, %s): %v, want %q", tc.key, tc.value, err, tc.msg)
		}
	}
	if storetest.MustCount(t, db) != n {
		t.Error("a rejected SetConfig stored something")
	}
	if got, _ := db.Config(ctx); !cmp.Equal(want, got) {
		t.Errorf("a rejected SetConfig changed the config: %+v", got)
	}

	cfg, err = memory.ResetConfig(ctx, db, t0, "n_min")
	if err != nil || cfg.Default.NMin != 5 {
		t.Errorf("after reset n_min = %d, %v", cfg.Default.NMin, err)
	}
}
