package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/redact/redacttest"
)

// corpusText is one text of the corpus and the secret it holds.
type corpusText struct {
	what, text, secret string
}

// corpusTexts are every shape of redacttest followed by each trailer,
// inside each wrapper, and, for a secret found alone, after each leader
// and before a few trailers.
func corpusTexts() []corpusText {
	var out []corpusText
	for _, sh := range redacttest.Shapes() {
		for _, t := range redacttest.Trailers {
			out = append(out, corpusText{fmt.Sprintf("%s + %q", sh.Name, t), sh.With(t), sh.Secret})
		}
		for _, w := range redacttest.Wrappers {
			out = append(out, corpusText{fmt.Sprintf("%q + %s + %q", w[0], sh.Name, w[1]), w[0] + sh.Text() + w[1], sh.Secret})
		}
		if !sh.Alone {
			continue
		}
		for _, l := range redacttest.Leaders {
			for _, t := range []string{"", "|", ")", ",", "&", ";", "'", "."} {
				out = append(out, corpusText{fmt.Sprintf("%q + %s alone + %q", l, sh.Name, t), l + sh.Secret + t, sh.Secret})
			}
		}
	}
	return out
}

// TestCorpus redacts every text of corpusTexts: none may keep its secret,
// and each must hold a placeholder and count one secret at least.
func TestCorpus(t *testing.T) {
	shapes := redacttest.Shapes()
	if len(shapes) < 57 {
		t.Fatalf("only %d shapes", len(shapes))
	}
	texts := corpusTexts()
	var leaked []string
	for _, c := range texts {
		got, n := Text(c.text)
		if strings.Contains(got, c.secret) || n < 1 || !strings.Contains(got, "[REDACTED:") {
			leaked = append(leaked, fmt.Sprintf("%s: %q → %q (%d)", c.what, clip(c.text), clip(got), n))
		}
	}
	t.Logf("%d shapes, %d texts, %d leaked", len(shapes), len(texts), len(leaked))
	for _, l := range leaked {
		t.Error(l)
	}
}

// TestCorpusVariants redacts the texts the end-to-end corpus test sends
// (variant v of every shape, followed by a trailer that turns with the
// shape and the variant), so that a secret it finds stored is a channel's
// fault, not the redactor's.
func TestCorpusVariants(t *testing.T) {
	for v := uint64(1); v <= 16; v++ {
		for i, sh := range redacttest.ShapesFor(v) {
			text := sh.With(redacttest.Trailers[(i+int(v))%len(redacttest.Trailers)])
			if got, _ := Text(text); strings.Contains(got, sh.Secret) {
				t.Errorf("variant %d, %s: %q → %q", v, sh.Name, clip(text), clip(got))
			}
		}
	}
}

// TestCorpusShapesDistinct keeps the corpus honest: names are unique, each
// secret occurs once in its text and differs from every other.
func TestCorpusShapesDistinct(t *testing.T) {
	names, secrets := map[string]bool{}, map[string]bool{}
	for _, sh := range redacttest.Shapes() {
		if names[sh.Name] || secrets[sh.Secret] {
			t.Errorf("%s: name or secret given twice", sh.Name)
		}
		names[sh.Name], secrets[sh.Secret] = true, true
		if strings.Count(sh.Text(), sh.Secret) != 1 || len(sh.Secret) < 6 {
			t.Errorf("%s: %q does not hold its secret once", sh.Name, sh.Text())
		}
	}
}

// clip shortens a text for a failure message.
func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
