package redact

import (
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
)

// TestGitleaksTerminators checks that the embedded rule set still ends its
// secrets with gitleaksTerminator (a new gitleaks version that changed it
// fails here, instead of silently missing secrets followed by | or ) again)
// and that the detector runs with every one widened.
func TestGitleaksTerminators(t *testing.T) {
	widened, n := widenTerminators(config.DefaultConfig)
	if n < 100 {
		t.Fatalf("the gitleaks rule set ends %d secrets with %s: want 100 or more; update gitleaksTerminator", n, gitleaksTerminator)
	}
	if strings.Contains(widened, gitleaksTerminator) {
		t.Fatal("a terminator was left as it was")
	}
	d, err := detector()
	if err != nil {
		t.Fatal(err)
	}
	loaded := 0
	for _, r := range d.Config.Rules {
		if r.Regex != nil && strings.Contains(r.Regex.String(), anyTerminator) {
			loaded++
		}
		if r.Regex != nil && strings.Contains(r.Regex.String(), gitleaksTerminator) {
			t.Errorf("rule %s still ends its secret with %s", r.RuleID, gitleaksTerminator)
		}
	}
	if loaded < n/2 {
		t.Errorf("%d rules loaded with the wide terminator, of %d replaced", loaded, n)
	}
	if !d.IgnoreGitleaksAllow {
		t.Error(`the detector honours "gitleaks:allow"`)
	}
}

// TestGitleaksAllowComment redacts a secret whose line says gitleaks:allow.
func TestGitleaksAllowComment(t *testing.T) {
	secret := secretCases()[7].secret
	got, n := Text("token = " + secret + " # gitleaks:allow")
	if n != 1 || strings.Contains(got, secret) {
		t.Fatalf("Text = %q, %d", got, n)
	}
}
