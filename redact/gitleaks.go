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

// The detector is gitleaks' own (github.com/zricethezav/gitleaks/v8/detect)
// with its embedded default rule set (config.DefaultConfig): about 220 rules
// for cloud, forge, AI-provider, chat and payment tokens, JWTs, private-key
// blocks and high-entropy values assigned to names like password, secret,
// token or api_key, each with its keywords, entropy floor and allowlists
// (placeholders, ${ENV} references, example keys). It is built once, on first
// use, and is safe for concurrent use.
var (
	detOnce sync.Once
	det     *detect.Detector
	detErr  error
)

// detector returns the shared gitleaks detector. The rule set is compiled
// into the binary, so an error here means the embedded configuration did not
// load: a build defect, not an input problem.
func detector() (*detect.Detector, error) {
	detOnce.Do(func() {
		// gitleaks logs to stderr through a package-level zerolog logger;
		// its messages are about scanning files and repositories, never
		// about a text scanned here.
		logging.Logger = zerolog.Nop()
		v := viper.New()
		v.SetConfigType("toml")
		if detErr = v.ReadConfig(strings.NewReader(config.DefaultConfig)); detErr != nil {
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
