package engine

import (
	"slices"
	"strings"
	"testing"
)

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
		{"candidates.auto_promote", "false", false, func(c Config) bool { return !c.AutoPromote }},
		{"candidates.auto_promote", " FALSE ", false, func(c Config) bool { return !c.AutoPromote }},
		{"candidates.auto_promote", "0", false, func(c Config) bool { return !c.AutoPromote }},
		{"candidates.auto_promote", "true", false, func(c Config) bool { return c.AutoPromote }},
		{"candidates.auto_promote", "maybe", true, nil},
		{"candidates.auto_promote", "", true, nil},
		{"candidates.auto_promote", "yes", true, nil},
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
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), strings.TrimSpace(tt.key)) {
				t.Errorf("%s=%s: %v, want invalid", tt.key, tt.value, err)
			}
			if after := c.Entries(); !slices.Equal(after, before) {
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

func TestConfigValidateKey(t *testing.T) {
	custom := DefaultConfig()
	if err := custom.Set("category.docs.n_min", "4"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, key string
		want      string // "" for valid, else a fragment of the EINVALID message
	}{
		{"top-level key", "max_rules", ""},
		{"auto-promotion", "candidates.auto_promote", ""},
		{"misspelt auto-promotion", "candidate.auto_promote", `unknown config key "candidate.auto_promote" (did you mean "candidates.auto_promote"?)`},
		{"auto-promotion without its section", "auto_promote", `unknown config key "auto_promote"`},
		{"spaces around", "  n_min ", ""},
		{"configured category", "category.security_policy.c_min", ""},
		{"custom category once configured", "category.docs.tau_days", ""},
		{"new category far from the others", "category.release_notes.n_min", ""},
		{"misspelt key", "max_rulez", `unknown config key "max_rulez" (did you mean "max_rules"?): the keys are alpha_prior, beta_prior, c_min, candidates.auto_promote, dormant_days, exception_min_count, explicit.weight, inbox.session_min, inbox.share, max_rules, n_min, provisional_c_min, provisional_n_min, stale_weak_days, stale_weak_n_max, tau_days, and category.NAME`},
		{"unknown key, nothing close", "colour", `unknown config key "colour": the keys are`},
		{"misspelt category", "category.tool_preferance.n_min", `did you mean "category.tool_preference.n_min"?`},
		{"misspelt custom category", "category.doc.n_min", `did you mean "category.docs.n_min"?`},
		{"misspelt field", "category.code_style.cmin", `did you mean "category.code_style.c_min"?`},
		{"unknown field", "category.code_style.colour", "a category has n_min, c_min and tau_days"},
		{"no field", "category.code_style", "want category.NAME.n_min"},
		{"uppercase category", "category.Code.n_min", "lowercase category name"},
		{"empty", "", "unknown config key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := custom.ValidateKey(tt.key)
			if tt.want == "" {
				if err != nil {
					t.Errorf("ValidateKey(%q): %v", tt.key, err)
				}
				return
			}
			if ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ValidateKey(%q): %v, want invalid with %q", tt.key, err, tt.want)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"max_rules", "n_min", "c_min"}
	tests := []struct{ s, want string }{
		{"max_rulez", "max_rules"},
		{"maxrules", "max_rules"},
		{"max_rules", ""},  // itself: nothing to suggest
		{"nmin", "n_min"},  // the closest wins (c_min is two edits away)
		{"x_min", "n_min"}, // the first of equally close ones
		{"tau_days", ""},
		{strings.Repeat("x", 65), ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.s, known); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestDefaultConfigWaitsForReview: candidates wait for the user's accept
// unless auto-promotion is switched on, and the entries say so.
func TestDefaultConfigWaitsForReview(t *testing.T) {
	c := DefaultConfig()
	if c.AutoPromote {
		t.Fatal("auto-promotion is on by default")
	}
	if !slices.Contains(c.Entries(), ConfigEntry{"candidates.auto_promote", "false"}) {
		t.Errorf("entries %v lack candidates.auto_promote=false", c.Entries())
	}
	c.Set("candidates.auto_promote", "true")
	if !slices.Contains(c.Entries(), ConfigEntry{"candidates.auto_promote", "true"}) {
		t.Errorf("entries %v lack candidates.auto_promote=true", c.Entries())
	}
}
