package redact

import (
	"strings"
	"testing"
)

func TestTextRedactsSecrets(t *testing.T) {
	cases := secretCases()
	if len(cases) < 30 {
		t.Fatalf("only %d secret shapes", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := Text(tc.text)
			if strings.Contains(got, tc.secret) {
				t.Fatalf("secret kept:\n%s", got)
			}
			if n < 1 {
				t.Fatalf("n = %d, want ≥ 1; got %q", n, got)
			}
			if !strings.Contains(got, "[REDACTED:") {
				t.Fatalf("no placeholder in %q", got)
			}
		})
	}
}

func TestTextKeepsLookAlikes(t *testing.T) {
	texts := lookAlikes()
	if len(texts) < 30 {
		t.Fatalf("only %d look-alikes", len(texts))
	}
	for _, text := range texts {
		got, n := Text(text)
		if n != 0 || got != text {
			t.Errorf("Text(%q) = %q, %d; want it unchanged", text, got, n)
		}
	}
}

func TestTextPlaceholderTypes(t *testing.T) {
	byName := map[string]secretCase{}
	for _, tc := range secretCases() {
		byName[tc.name] = tc
	}
	for name, want := range map[string]string{
		"aws access key id":         "[REDACTED:aws-access-token]",
		"github classic pat":        "[REDACTED:github-pat]",
		"gitlab pat":                "[REDACTED:gitlab-pat]",
		"anthropic api key":         "[REDACTED:anthropic-api-key]",
		"rsa private key":           "[REDACTED:private-key]",
		"jwt":                       "[REDACTED:jwt]",
		"stripe live secret":        "[REDACTED:stripe-access-token]",
		"azure storage account key": "[REDACTED:azure-storage-account-key]",
		"password assignment":       "[REDACTED:password]",
		"api_key yaml":              "[REDACTED:generic-api-key]",
	} {
		got, _ := Text(byName[name].text)
		if !strings.Contains(got, want) {
			t.Errorf("%s: %q has no %s", name, got, want)
		}
	}
}

func TestTextCountsEachOccurrence(t *testing.T) {
	cs := secretCases()
	aws, gh := cs[0].secret, cs[7].secret
	text := "first " + aws + " then " + gh + " and again " + aws + "\n"
	got, n := Text(text)
	if n != 3 {
		t.Fatalf("n = %d, want 3: %q", n, got)
	}
	if again, m := Text(got); m != 0 || again != got {
		t.Fatalf("redacted text redacted again: %q, %d", again, m)
	}
}

func TestStrings(t *testing.T) {
	cs := secretCases()
	a, b, empty := cs[0].text, cs[7].text, ""
	if n := Strings(&a, nil, &b, &empty); n != 2 {
		t.Fatalf("Strings = %d, want 2", n)
	}
	if strings.Contains(a, cs[0].secret) || strings.Contains(b, cs[7].secret) || empty != "" {
		t.Fatalf("not redacted in place: %q %q %q", a, b, empty)
	}
}

// BenchmarkText1KB measures ns per 1 KB correction: ordinary prose with the
// words that wake the generic assignment rule (token, key, secret), without
// and with a secret in it.
func BenchmarkText1KB(b *testing.B) {
	prose := strings.Repeat("stop using sed to edit files; the token and api key live in the secret store, use the replace tool. ", 11)[:1024]
	withSecret := prose[:900] + " " + secretCases()[7].secret + " " + prose[:1024-938]
	for _, bc := range []struct{ name, text string }{{"clean", prose}, {"one-secret", withSecret}} {
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

// BenchmarkFindExtra1KB measures the share of extra.go's rules in
// BenchmarkText1KB: the same texts, without gitleaks' detector.
func BenchmarkFindExtra1KB(b *testing.B) {
	prose := strings.Repeat("stop using sed to edit files; the token and api key live in the secret store, use the replace tool. ", 11)[:1024]
	withSecret := prose[:900] + " password: " + secretCases()[7].secret + " " + prose[:1024-949]
	for _, bc := range []struct{ name, text string }{{"clean", prose}, {"one-secret", withSecret}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				findExtra(bc.text)
			}
		})
	}
}
