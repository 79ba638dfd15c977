package lexical

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models/modeltest"
)

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestLexicalContract(t *testing.T) {
	l := New(0)
	if id := l.Identity(); id.Name != "lexical-v1" || id.Dims != DefaultDims || len(id.SHA256) != 64 {
		t.Fatalf("identity %+v", id)
	}
	texts := modeltest.ReferenceTexts(t)
	var usable []string
	for _, s := range texts {
		if len(lexWords(s)) > 0 {
			usable = append(usable, s)
		}
	}
	a := modeltest.MustEmbed(t, l, usable)
	b := modeltest.MustEmbed(t, New(0), usable)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("two embedders disagree (-a +b):\n%s", d)
	}
}

func TestLexicalSimilarity(t *testing.T) {
	l := New(0)
	corpus := []string{
		"use pnpm instead of npm", "never commit directly to main", "run go test before finishing",
		"dates are ISO 8601 in UTC", "use rg instead of grep", "keep pull requests small",
	}
	l.Fit(corpus)
	tests := []struct{ query, near, far string }{
		{"please use pnpm, not npm", "use pnpm instead of npm", "never commit directly to main"},
		{"don't commit to main directly", "never commit directly to main", "use pnpm instead of npm"},
		{"ripgrep (rg) is faster than grep", "use rg instead of grep", "dates are ISO 8601 in UTC"},
		{"Dátes in UTC", "dates are ISO 8601 in UTC", "keep pull requests small"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			v := modeltest.MustEmbed(t, l, []string{tt.query, tt.near, tt.far})
			if near, far := dot(v[0], v[1]), dot(v[0], v[2]); near <= far {
				t.Errorf("sim(query, near) = %.3f <= sim(query, far) = %.3f", near, far)
			}
		})
	}
}

func TestLexicalFitChangesIdentity(t *testing.T) {
	l := New(512)
	before := l.Identity()
	l.Fit([]string{"alpha beta", "beta gamma"})
	fitted := l.Identity()
	if before.ID() == fitted.ID() || fitted.Dims != 512 {
		t.Errorf("identity before %v, after Fit %v: want a different ID, dims 512", before, fitted)
	}
	l2 := New(512)
	l2.Fit([]string{"alpha beta", "beta gamma"})
	if l2.Identity() != fitted {
		t.Errorf("the same fit gives %v and %v", fitted, l2.Identity())
	}
	l2.Fit([]string{"alpha beta", "beta delta"})
	if l2.Identity() == fitted {
		t.Error("a different corpus gives the same identity")
	}
}

func TestLexicalErrors(t *testing.T) {
	l := New(0)
	for _, text := range []string{"", "   ", "\u200b", "\t\n"} {
		_, err := l.Embed(context.Background(), []string{"fine", text})
		modeltest.WantErr(t, err, engine.EINVALID, "text 1")
	}
}

func TestLexWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Don't use SED!", []string{"dont", "use", "sed"}},
		{"Ｆｕｌｌ-width ＡＢＣ", []string{"full", "width", "abc"}},
		{"日本語です", []string{"日", "本", "語", "で", "す"}},
		{"errors.Is(err, io.EOF)", []string{"errors", "is", "err", "io", "eof"}},
		{"Café naïve", []string{"cafe", "naive"}},
		{"👍 !!", []string{"👍", "!", "!"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, lexWords(tt.in)); d != "" {
			t.Errorf("lexWords(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

func TestLexicalConcurrent(t *testing.T) {
	l := New(0)
	texts := []string{"use pnpm", "never commit to main", "日本語", "rg > grep"}
	want := modeltest.MustEmbed(t, l, texts)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := l.Embed(context.Background(), texts)
			if err != nil {
				t.Error(err)
				return
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("concurrent result differs:\n%s", d)
			}
		})
	}
	wg.Wait()
}
