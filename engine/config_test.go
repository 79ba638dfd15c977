package engine

import "testing"

func TestConfigSet(t *testing.T) {
	tests := []struct {
		key, value string
		wantErr    bool
		check      func(Config) bool
	}{
		{"n_min", "7", false, func(c Config) bool { return c.Default.NMin == 7 }},
		{"c_min", "0.75", false, func(c Config) bool { return c.Default.CMin == 0.75 }},
		{"tau_days", "90", false, func(c Config) bool { return c.Default.TauDays == 90 }},
		{"category.security_policy.n_min", "12", false, func(c Config) bool { return c.For(CategorySecurityPolicy).NMin == 12 }},
		{"category.new_cat.tau_days", "30", false, func(c Config) bool {
			t := c.For("new_cat")
			return t.TauDays == 30 && t.NMin == 5 && t.CMin == 0.7
		}},
		{"max_rules", "50", false, func(c Config) bool { return c.MaxRules == 50 }},
		{"c_min", "1.5", true, nil},
		{"c_min", "NaN", true, nil},
		{"n_min", "2.5", true, nil},
		{"n_min", "-1", true, nil},
		{"tau_days", "Inf", true, nil},
		{"unknown", "1", true, nil},
		{"category.Bad.n_min", "1", true, nil},
		{"category.x.color", "1", true, nil},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		before := c.Entries()
		err := c.Set(tt.key, tt.value)
		if tt.wantErr {
			if ErrorCode(err) != EINVALID {
				t.Errorf("%s=%s: %v, want invalid", tt.key, tt.value, err)
			}
			if after := c.Entries(); len(after) != len(before) {
				t.Errorf("%s=%s: config changed on error", tt.key, tt.value)
			}
			continue
		}
		if err != nil || !tt.check(c) {
			t.Errorf("%s=%s: err %v, config %+v", tt.key, tt.value, err, c)
		}
	}
	// Set must not alias the default's category map.
	c := DefaultConfig()
	c.Set("category.security_policy.n_min", "99")
	if DefaultConfig().For(CategorySecurityPolicy).NMin != 10 {
		t.Error("Set changed the defaults")
	}
}

func TestConfigEntriesRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.Set("category.foo.c_min", "0.5")
	d := DefaultConfig()
	for _, e := range c.Entries() {
		if err := d.Set(e.Key, e.Value); err != nil {
			t.Fatalf("%s=%s: %v", e.Key, e.Value, err)
		}
	}
	if len(d.Entries()) != len(c.Entries()) || d.For("foo").CMin != 0.5 {
		t.Errorf("round trip lost entries")
	}
}
