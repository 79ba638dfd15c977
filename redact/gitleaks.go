package redact

import (
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// The detector is gitleaks' own (github.com/zricethezav/gitleaks/v8/detect,
// the version go.mod requires) with its embedded default rule set
// (config.DefaultConfig): about 220 rules for cloud, forge, AI-provider,
// chat and payment tokens, JWTs, private-key blocks and high-entropy values
// assigned to names like password, secret, token or api_key, each with its
// keywords, entropy floor and allowlists (placeholders, ${ENV} references,
// example keys). It is built once, on first use, and is safe for concurrent
// use.
//
// Updating the rule set is updating the module:
//
//	go get github.com/zricethezav/gitleaks/v8@latest && go mod tidy
//	go test ./redact/
//
// TestGitleaksTerminators fails when a new version writes the end of a
// secret differently from gitleaksTerminator, so the widening below is
// never silently lost.
var (
	detOnce sync.Once
	det     *detect.Detector
	detErr  error
)

// gitleaksTerminator is how gitleaks' generated rules (about 150 of them)
// end a secret: a quote, white space, ";", an escaped \n or \r, or the end
// of the text. A secret followed by anything else — "|" in `echo KEY|base64`,
// ")" in f(KEY), "," in a list, "&" in a query, ">" in a redirection, "." at
// the end of a sentence — is not found.
const gitleaksTerminator = `(?:[\x60'"\s;]|\\[nr]|$)`

// anyTerminator replaces gitleaksTerminator: a secret ends before any byte
// that cannot continue a token (letters, digits, "_" and "-" can), or at the
// end of the text. Each rule's own alphabet still bounds the secret, so the
// wider set only lets a rule match where a punctuation mark follows.
const anyTerminator = `(?:[^0-9A-Za-z_-]|$)`

// widenTerminators returns the rule set toml with every gitleaksTerminator
// replaced by anyTerminator, and how many it replaced.
func widenTerminators(toml string) (string, int) {
	return strings.ReplaceAll(toml, gitleaksTerminator, anyTerminator), strings.Count(toml, gitleaksTerminator)
}

// detector returns the shared gitleaks detector. The rule set is compiled
// into the binary, so an error here means the embedded configuration did not
// load: a build defect, not an input problem.
func detector() (*detect.Detector, error) {
	detOnce.Do(func() {
		// gitleaks logs to stderr through a package-level zerolog logger;
		// its messages are about scanning files and repositories, never
		// about a text scanned here.
		logging.Logger = zerolog.Nop()
		toml, _ := widenTerminators(config.DefaultConfig)
		v := viper.New()
		v.SetConfigType("toml")
		if detErr = v.ReadConfig(strings.NewReader(toml)); detErr != nil {
			return
		}
		var vc config.ViperConfig
		if detErr = v.Unmarshal(&vc); detErr != nil {
			return
		}
		cfg, err := vc.Translate()
		if err != nil {
			detErr = err
			return
		}
		det = detect.NewDetector(cfg)
		// A "gitleaks:allow" comment silences a finding in a repository
		// scan; in a text sent to LexSona it would let any secret through.
		det.IgnoreGitleaksAllow = true
	})
	return det, detErr
}

// find returns the secrets gitleaks finds in s. It panics when the embedded
// rule set does not load (see detector), so a broken build fails its first
// test rather than storing secrets.
func find(s string) []Finding {
	d, err := detector()
	if err != nil {
		panic("redact: the embedded gitleaks rule set does not load: " + err.Error())
	}
	var out []Finding
	for _, f := range d.DetectString(s) {
		secret := f.Secret
		if secret == "" || !strings.Contains(s, secret) {
			secret = f.Match
		}
		out = append(out, Finding{Type: f.RuleID, Secret: secret})
	}
	return out
}
