package engine

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Thresholds are the activation conditions of one category.
type Thresholds struct {
	NMin    int     `json:"n_min"`    // evidence floor: reinforcements + counterexamples
	CMin    float64 `json:"c_min"`    // confidence_final floor
	TauDays float64 `json:"tau_days"` // recency decay time constant
}

// Config holds every hyperparameter of the engine. The zero value is not
// useful: start from DefaultConfig and apply overrides with Set.
type Config struct {
	AlphaPrior float64 `json:"alpha_prior"`
	BetaPrior  float64 `json:"beta_prior"`
	// Default applies to every category without an entry in Categories.
	Default    Thresholds            `json:"default"`
	Categories map[string]Thresholds `json:"categories"`
	// A must rule that is not active but has at least ProvisionalNMin evidence
	// and confidence_final ≥ ProvisionalCMin is injected flagged provisional.
	ProvisionalNMin int     `json:"provisional_n_min"`
	ProvisionalCMin float64 `json:"provisional_c_min"`
	// Stale-weak: last correction older than StaleWeakDays and evidence below
	// StaleWeakNMax. Dormant: older than DormantDays.
	StaleWeakDays float64 `json:"stale_weak_days"`
	StaleWeakNMax int     `json:"stale_weak_n_max"`
	DormantDays   float64 `json:"dormant_days"`
	// MaxRules is the snapshot's default size; ExceptionMinCount the number of
	// counterexamples sharing a context tag that triggers an exception proposal.
	MaxRules          int `json:"max_rules"`
	ExceptionMinCount int `json:"exception_min_count"`
	// AutoPromote (key candidates.auto_promote) lets a candidate become
	// active-eligible by itself once it passes its category's evidence floor
	// and confidence threshold (see PromoteCandidate); off, candidates wait
	// for the user's accept.
	AutoPromote bool `json:"auto_promote"`
	// ExplicitWeight (key explicit.weight) is how many counterexamples,
	// recorded after a rule was stated explicitly (Rule.State), it takes to
	// outweigh the statement: until then the rule is in force whatever its
	// evidence (StatedInForce). 0 makes explicit acts plain evidence.
	ExplicitWeight int `json:"explicit_weight"`
	// InboxShare (key inbox.share) bounds the suggestions one session's
	// captured prompts leave open in the inbox to that share of its
	// prompts, and at least InboxSessionMin (key inbox.session_min): past
	// it a more likely suggestion replaces the least likely, a less likely
	// one is dropped. InboxShare 0 means no bound.
	InboxShare      float64 `json:"inbox_share"`
	InboxSessionMin int     `json:"inbox_session_min"`
}

// DefaultConfig returns the default hyperparameters: a Beta(2, 5) prior;
// activation at n ≥ 5 and confidence ≥ 0.7 (3 and 0.6 for tool_preference,
// code_style and communication_style; 10 and 0.8 for security_policy) with a
// 180-day decay; provisional must rules from n ≥ 3 and confidence ≥ 0.5;
// stale-weak after 365 days with n < 5, dormant after 730; 20 rules per
// snapshot; an exception proposed after 3 counterexamples sharing a tag;
// candidates wait for the user's accept; an explicit statement outweighed by
// 3 counterexamples; open suggestions from one session at most 3% of its
// prompts, and at least 1.
func DefaultConfig() Config {
	style := Thresholds{NMin: 3, CMin: 0.6, TauDays: 180}
	return Config{
		AlphaPrior: 2, BetaPrior: 5,
		Default: Thresholds{NMin: 5, CMin: 0.7, TauDays: 180},
		Categories: map[string]Thresholds{
			CategorySecurityPolicy:     {NMin: 10, CMin: 0.8, TauDays: 180},
			CategoryToolPreference:     style,
			CategoryCodeStyle:          style,
			CategoryCommunicationStyle: style,
		},
		ProvisionalNMin: 3, ProvisionalCMin: 0.5,
		StaleWeakDays: 365, StaleWeakNMax: 5, DormantDays: 730,
		MaxRules: 20, ExceptionMinCount: 3,
		AutoPromote: false, ExplicitWeight: 3, InboxShare: 0.02, InboxSessionMin: 1,
	}
}

// For returns the thresholds of category c.
func (c Config) For(category string) Thresholds {
	if t, ok := c.Categories[category]; ok {
		return t
	}
	return c.Default
}

// Entries lists the config as dotted key → value strings, sorted by key; the
// keys are the ones Set accepts.
func (c Config) Entries() []ConfigEntry {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	i := strconv.Itoa
	out := []ConfigEntry{
		{"alpha_prior", f(c.AlphaPrior)}, {"beta_prior", f(c.BetaPrior)},
		{"n_min", i(c.Default.NMin)}, {"c_min", f(c.Default.CMin)}, {"tau_days", f(c.Default.TauDays)},
		{"provisional_n_min", i(c.ProvisionalNMin)}, {"provisional_c_min", f(c.ProvisionalCMin)},
		{"stale_weak_days", f(c.StaleWeakDays)}, {"stale_weak_n_max", i(c.StaleWeakNMax)},
		{"dormant_days", f(c.DormantDays)}, {"max_rules", i(c.MaxRules)},
		{"exception_min_count", i(c.ExceptionMinCount)},
		{"candidates.auto_promote", strconv.FormatBool(c.AutoPromote)},
		{"explicit.weight", i(c.ExplicitWeight)},
		{"inbox.share", f(c.InboxShare)},
		{"inbox.session_min", i(c.InboxSessionMin)},
	}
	for name, t := range c.Categories {
		p := "category." + name + "."
		out = append(out, ConfigEntry{p + "n_min", i(t.NMin)}, ConfigEntry{p + "c_min", f(t.CMin)}, ConfigEntry{p + "tau_days", f(t.TauDays)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out
}

// ConfigEntry is one key of the config and its value as text.
type ConfigEntry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Set applies one dotted key (as listed by Entries; "category.NAME.n_min",
// ".c_min" and ".tau_days" also create a category's entry, starting from the
// default thresholds; "candidates.auto_promote" takes true or false, as
// strconv.ParseBool reads them). It returns an EINVALID error naming the key or value
// that is wrong, and leaves c unchanged in that case.
func (c *Config) Set(key, value string) error {
	key = strings.TrimSpace(key)
	value = strings.TrimSpace(value)
	num := func(min, max float64, integer bool) (float64, error) {
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, Errorf(EINVALID, "config %s: %q is not a finite number", key, value)
		}
		if integer && v != math.Trunc(v) {
			return 0, Errorf(EINVALID, "config %s: %q is not a whole number", key, value)
		}
		if v < min || v > max {
			return 0, Errorf(EINVALID, "config %s: %s is out of range [%g, %g]", key, value, min, max)
		}
		return v, nil
	}
	setF := func(dst *float64, min, max float64) error {
		v, err := num(min, max, false)
		if err == nil {
			*dst = v
		}
		return err
	}
	setI := func(dst *int, min, max float64) error {
		v, err := num(min, max, true)
		if err == nil {
			*dst = int(v)
		}
		return err
	}
	if rest, ok := strings.CutPrefix(key, "category."); ok {
		name, field, ok := strings.Cut(rest, ".")
		if !ok || ValidateCategory(name) != nil {
			return Errorf(EINVALID, "config key %q: want category.NAME.n_min, .c_min or .tau_days with a lowercase category name", key)
		}
		t := c.For(name)
		var err error
		switch field {
		case "n_min":
			err = setI(&t.NMin, 0, 1e6)
		case "c_min":
			err = setF(&t.CMin, 0, 1)
		case "tau_days":
			err = setF(&t.TauDays, 1e-3, 1e6)
		default:
			return Errorf(EINVALID, "unknown config key %.64q: a category has n_min, c_min and tau_days", key)
		}
		if err != nil {
			return err
		}
		cats := make(map[string]Thresholds, len(c.Categories)+1)
		for k, v := range c.Categories {
			cats[k] = v
		}
		cats[name] = t
		c.Categories = cats
		return nil
	}
	switch key {
	case "alpha_prior":
		return setF(&c.AlphaPrior, 1e-6, 1e6)
	case "beta_prior":
		return setF(&c.BetaPrior, 1e-6, 1e6)
	case "n_min":
		return setI(&c.Default.NMin, 0, 1e6)
	case "c_min":
		return setF(&c.Default.CMin, 0, 1)
	case "tau_days":
		return setF(&c.Default.TauDays, 1e-3, 1e6)
	case "provisional_n_min":
		return setI(&c.ProvisionalNMin, 0, 1e6)
	case "provisional_c_min":
		return setF(&c.ProvisionalCMin, 0, 1)
	case "stale_weak_days":
		return setF(&c.StaleWeakDays, 0, 1e6)
	case "stale_weak_n_max":
		return setI(&c.StaleWeakNMax, 0, 1e6)
	case "dormant_days":
		return setF(&c.DormantDays, 0, 1e6)
	case "max_rules":
		return setI(&c.MaxRules, 1, 10000)
	case "exception_min_count":
		return setI(&c.ExceptionMinCount, 1, 1e6)
	case "candidates.auto_promote":
		v, err := strconv.ParseBool(value)
		if err != nil {
			return Errorf(EINVALID, "config %s: %.64q is not true or false", key, value)
		}
		c.AutoPromote = v
		return nil
	case "explicit.weight":
		return setI(&c.ExplicitWeight, 0, 1e6)
	case "inbox.share":
		return setF(&c.InboxShare, 0, 1)
	case "inbox.session_min":
		return setI(&c.InboxSessionMin, 0, 1e6)
	}
	return c.unknownKey(key)
}

// categoryFields are the keys of a category's thresholds.
var categoryFields = []string{"n_min", "c_min", "tau_days"}

// keys lists the keys of c that are not a category's.
func (c Config) keys() []string {
	var out []string
	for _, e := range c.Entries() {
		if !strings.HasPrefix(e.Key, "category.") {
			out = append(out, e.Key)
		}
	}
	return out
}

// unknownKey is the EINVALID error of an unknown key: it names the closest
// key, if one is within two edits, and every key.
func (c Config) unknownKey(key string) error {
	keys := c.keys()
	mean := ""
	if k := Suggest(key, keys); k != "" {
		mean = fmt.Sprintf(" (did you mean %q?)", k)
	}
	return Errorf(EINVALID, "unknown config key %.64q%s: the keys are %s, and category.NAME.n_min, .c_min and .tau_days",
		key, mean, strings.Join(keys, ", "))
}

// ValidateKey reports an EINVALID error for a key Set would refuse (unknown,
// or a category key without a lowercase name or with another field), or one
// that names a category with no thresholds of its own yet whose name is
// within two edits of a configured or known category: a misspelt
// "category.tool_preferance.n_min" would otherwise quietly create a new
// category. It names the key to use.
func (c Config) ValidateKey(key string) error {
	key = strings.TrimSpace(key)
	rest, ok := strings.CutPrefix(key, "category.")
	if !ok {
		if slices.Contains(c.keys(), key) {
			return nil
		}
		return c.unknownKey(key)
	}
	name, field, ok := strings.Cut(rest, ".")
	if !ok || ValidateCategory(name) != nil {
		return Errorf(EINVALID, "config key %.64q: want category.NAME.n_min, .c_min or .tau_days with a lowercase category name", key)
	}
	if !slices.Contains(categoryFields, field) {
		mean := ""
		if f := Suggest(field, categoryFields); f != "" {
			mean = fmt.Sprintf(" (did you mean %q?)", "category."+name+"."+f)
		}
		return Errorf(EINVALID, "unknown config key %.64q%s: a category has n_min, c_min and tau_days", key, mean)
	}
	if _, ok := c.Categories[name]; ok {
		return nil
	}
	known := slices.Sorted(maps.Keys(c.Categories))
	known = append(known, KnownCategories...)
	if k := Suggest(name, known); k != "" {
		return Errorf(EINVALID, "config key %q: category %q has no thresholds of its own; did you mean %q? (a new category's name must not be within two edits of an existing one)",
			key, name, "category."+k+"."+field)
	}
	return nil
}
