package eval

// Throw-away experiment dumper (quality helper); deleted after the round.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/auto"
	"github.com/lexsona/lexsona/registry"
	"github.com/lexsona/lexsona/store"
)

type expSeg struct {
	Type   string    `json:"type"`
	Text   string    `json:"text"`
	Prod   []float64 `json:"prod"`
	Dense  []float64 `json:"dense"`
	Vec    []float32 `json:"vec"`
	Pol    int       `json:"pol"`
	Reason string    `json:"reason"`
	Words  int       `json:"words"`
}

type expItem struct {
	ID, Kind, Split, Expected string
	Acceptable                []string
	Segs                      []expSeg
}

var (
	expFence    = regexp.MustCompile("(?s)```.*?```")
	expCode     = regexp.MustCompile("`[^`]*`")
	expSentence = regexp.MustCompile(`(?:[.!?]+\s+|\n+|\s+--?\s+|;\s*)`)
	expBut      = regexp.MustCompile(`(?i),?\s+\b(?:but|though|although|however)\b\s+`)
)

func expSegments(text string) []expSeg {
	out := []expSeg{{Type: "whole", Text: text}}
	nc := strings.TrimSpace(expCode.ReplaceAllString(expFence.ReplaceAllString(text, " "), " "))
	if nc != "" && nc != text && strings.IndexFunc(nc, func(r rune) bool { return r > 'A' }) >= 0 {
		out = append(out, expSeg{Type: "nocode", Text: nc})
	}
	seen := map[string]bool{text: true}
	body := expFence.ReplaceAllString(text, "\n")
	for _, s := range expSentence.Split(body, -1) {
		s = strings.TrimSpace(s)
		if len(classifier.ContentWords(s)) == 0 || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, expSeg{Type: "sent", Text: s})
		for _, c := range expBut.Split(s, -1) {
			c = strings.TrimSpace(c)
			if len(classifier.ContentWords(c)) == 0 || seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, expSeg{Type: "clause", Text: c})
		}
	}
	return out
}

func expSetup(t *testing.T) (context.Context, models.Embedder, classifier.Corpus, *registry.Registry) {
	ctx := context.Background()
	var emb models.Embedder
	var err error
	if os.Getenv("EXP_LEXICAL") == "1" {
		emb, err = auto.Open(ctx, models.Options{Backend: "lexical"})
	} else {
		emb, err = auto.Open(ctx, models.Options{Backend: "ort", ModelDir: "/work/main/.cache/models/all-MiniLM-L6-v2", CacheSize: -1})
	}
	if err != nil {
		t.Fatal(err)
	}
	emb = models.NewCached(emb, 8000)
	reg := registry.Default()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if f, ok := emb.(models.Fitter); ok {
		f.Fit(reg.Texts())
	}
	if _, err := registry.Sync(ctx, db, emb, reg, registry.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return ctx, emb, memory.Corpus(db), reg
}

func TestQualityDump(t *testing.T) {
	out := os.Getenv("EXP_DUMP")
	if out == "" {
		t.Skip("EXP_DUMP not set")
	}
	ctx, emb, corpus, reg := expSetup(t)
	zero := classifier.Thresholds{}
	n := reg.Len()
	prod := classifier.New(corpus, emb, classifier.Options{Thresholds: &zero, K: n, MinScore: -1, Guard: &classifier.Guard{}})
	dense := classifier.New(corpus, emb, classifier.Options{Thresholds: &zero, K: n, MinScore: -1, Guard: &classifier.Guard{}, TermWeight: classifier.DenseOnly()})
	var ids []string
	pos := map[string]int{}
	for i, d := range reg.Definitions() {
		ids = append(ids, d.Rule.RuleID)
		pos[d.Rule.RuleID] = i
	}
	d := MustShipped(t)
	var items []expItem
	for _, it := range d.Items {
		ei := expItem{ID: it.ID, Kind: it.Kind, Split: it.Split, Expected: it.Expected, Acceptable: it.Acceptable}
		for _, s := range expSegments(it.Text) {
			p, err := prod.Classify(ctx, s.Text, engine.Scope{})
			if err != nil {
				t.Fatal(it.ID, err)
			}
			dn, err := dense.Classify(ctx, s.Text, engine.Scope{})
			if err != nil {
				t.Fatal(it.ID, err)
			}
			s.Prod, s.Dense = make([]float64, n), make([]float64, n)
			for _, c := range p.Candidates {
				s.Prod[pos[c.RuleID]] = c.Score
			}
			for _, c := range dn.Candidates {
				s.Dense[pos[c.RuleID]] = c.Score
			}
			s.Pol, s.Reason = int(resultPolarity(p)), p.Reason
			s.Words = len(classifier.ContentWords(s.Text))
			vs, err := emb.Embed(ctx, []string{s.Text})
			if err != nil {
				t.Fatal(err)
			}
			s.Vec = vs[0]
			ei.Segs = append(ei.Segs, s)
		}
		items = append(items, ei)
	}
	type regText struct {
		Rule, Kind, Text string
		Vec              []float32
	}
	var rt []regText
	for _, d := range reg.Definitions() {
		add := func(kind, text string) {
			vs, err := emb.Embed(ctx, []string{text})
			if err != nil {
				t.Fatal(err)
			}
			rt = append(rt, regText{d.Rule.RuleID, kind, text, vs[0]})
		}
		add("template", d.Rule.Text)
		for _, e := range d.Examples {
			add("example", e)
		}
		for _, c := range reg.Contrary(d.Rule.RuleID) {
			add("contrary", c)
		}
	}
	b, _ := json.Marshal(map[string]any{"rules": ids, "items": items, "regtexts": rt})
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = engine.Reinforce
}

// TestQualityEmbed embeds the lines of EXP_EMBED_IN into EXP_EMBED_OUT.
func TestQualityEmbed(t *testing.T) {
	in, out := os.Getenv("EXP_EMBED_IN"), os.Getenv("EXP_EMBED_OUT")
	if in == "" {
		t.Skip("EXP_EMBED_IN not set")
	}
	ctx, emb, _, _ := expSetup(t)
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		Text string
		Vec  []float32
	}
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		vs, err := emb.Embed(ctx, []string{l})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row{l, vs[0]})
	}
	b, _ := json.Marshal(rows)
	os.WriteFile(out, b, 0o644)
}
