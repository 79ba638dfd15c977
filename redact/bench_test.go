package redact

import (
	"strings"
	"testing"
)

// prompt64KB is a 64 KB prompt as an agent's user pastes one: prose, shell
// commands, a Go snippet, a log excerpt and a diff, with the words that wake
// gitleaks' rules and those of extra.go (token, key, secret, password,
// cookie, docker, mysql), and, when withSecret, one secret per kilobyte.
func prompt64KB(withSecret bool) string {
	block := strings.Join([]string{
		"Please stop using sed to edit files; the token and api key live in the secret store, use the replace tool.",
		"$ docker run -p 8080:80 -e LOG_LEVEL=debug ghcr.io/acme/app:1.4.2 | tee run.log",
		"$ mysql -u app -h db.internal shop < schema.sql && git push origin main",
		"func (s *Server) auth(r *http.Request) bool { return r.Header.Get(\"Authorization\") != \"\" }",
		"2025-11-22T10:00:00Z level=info msg=\"request\" path=/v1/rules status=200 cookie_policy=strict",
		"-\tpassword := cfg.Password\n+\tpassword := os.Getenv(\"DB_PASSWORD\")",
		"the password field should be hidden, and the session cookie must be HttpOnly.",
		"revert " + rnd(900, 40, "0123456789abcdef") + " (see https://github.com/lexsona/lexsona/pull/42).",
	}, "\n") + "\n"
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		b.WriteString(block)
		if withSecret {
			b.WriteString("export GH=" + join("gh", "p_", rnd(uint64(1000+i), 36, alnum)) + "|cat\n")
		}
	}
	return b.String()[:64<<10]
}

// BenchmarkText64KB measures Text on a 64 KB prompt without and with a
// secret per kilobyte.
func BenchmarkText64KB(b *testing.B) {
	for _, bc := range []struct {
		name string
		text string
	}{{"clean", prompt64KB(false)}, {"secrets", prompt64KB(true)}} {
		b.Run(bc.name, func(b *testing.B) {
			Text(bc.text) // build the detector outside the timing
			b.SetBytes(int64(len(bc.text)))
			b.ResetTimer()
			for b.Loop() {
				Text(bc.text)
			}
		})
	}
}

// BenchmarkParts64KB splits BenchmarkText64KB/clean between gitleaks'
// detector (find) and the rules of extra.go, cli.go and web.go (findExtra).
func BenchmarkParts64KB(b *testing.B) {
	text := prompt64KB(false)
	find(text) // build the detector outside the timing
	b.Run("gitleaks", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			find(text)
		}
	})
	b.Run("extra", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			findExtra(text)
		}
	})
}
