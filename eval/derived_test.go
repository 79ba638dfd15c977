package eval

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// A vector comes back from int8 at unit length, within a small angle.
func TestQuantizeRoundTrip(t *testing.T) {
	v := make([]float32, 384)
	var n float64
	for i := range v {
		v[i] = float32(math.Sin(float64(i)*0.7) * (1 + float64(i%5)))
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	s, scale := quantize(v)
	back, err := dequantize(s, scale)
	if err != nil {
		t.Fatal(err)
	}
	var dot, norm float64
	for i := range v {
		dot += float64(v[i]) * float64(back[i])
		norm += float64(back[i]) * float64(back[i])
	}
	if math.Abs(norm-1) > 1e-5 || dot < 0.9995 {
		t.Errorf("round trip: norm %v, cosine %v", norm, dot)
	}
}

// Derived figures written to files read back the same (vectors within
// quantisation), and a prompt that is not prose keeps only its route.
func TestDerivedFilesRoundTrip(t *testing.T) {
	vec := []float32{0.6, -0.8, 0}
	r := classifier.Reading{Model: "m@1", Vector: vec, Words: 1, Cues: []float64{0, 1, 0.3333},
		Whole: classifier.Segment{Addressed: true, Terms: map[string]float64{"tool.a": 0.25}, Cue: classifier.Cue{Kind: classifier.CuePermission},
			Sides: map[string]classifier.SideStance{"tool.a": {Polarity: engine.Counter}}},
		Clauses:  []classifier.Segment{{Vector: []float32{0, 1, 0}, Insists: true}, {Vector: []float32{1, 0, 0}}},
		Reversed: []string{"tool.b"}}
	ps := []DerivedPrompt{
		{SHA256: "f0" + "00", Route: RouteProse, English: 0.4, Reading: r},
		{SHA256: "0a", Route: RouteIgnored, English: 1},
	}
	dir := t.TempDir()
	meta := DerivedMeta{Format: DerivedFormat, Model: "m@1", Registry: "r", Prompts: 2, Shards: derivedShards, Rules: rulesOf(ps)}
	if err := WriteDerived(dir, meta, ps); err != nil {
		t.Fatal(err)
	}
	gotMeta, got, err := ReadDerived(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(meta, gotMeta); d != "" || len(got) != 2 {
		t.Fatalf("meta (-want +got):\n%s\n%d prompts", d, len(got))
	}
	if d := cmp.Diff(ps[1], got["0a"], cmpopts.IgnoreUnexported(classifier.Reading{}, classifier.Segment{})); d != "" {
		t.Errorf("ignored prompt (-want +got):\n%s", d)
	}
	if d := cmp.Diff(ps[0], got["f000"], cmp.Comparer(func(a, b float32) bool { return math.Abs(float64(a-b)) < 0.01 }),
		cmpopts.IgnoreUnexported(classifier.Reading{}, classifier.Segment{})); d != "" {
		t.Errorf("prose prompt (-want +got):\n%s", d)
	}
	for i := 0; i < derivedShards; i++ {
		if _, err := os.Stat(filepath.Join(dir, shardName(i))); err != nil {
			t.Errorf("shard %d: %v", i, err)
		}
	}
}

// The route a captured prompt takes before the classifier reads it.
func TestCapturedProse(t *testing.T) {
	tests := []struct {
		text, prose, route string
	}{
		{"stop using sed", "stop using sed", RouteProse},
		{"why?\n    at foo.Bar(Baz.java:10)\n    at foo.Qux(Baz.java:11)", "why?", RouteProse},
		{"CORRECT[tool.x]: no", "", RouteExplicit},
		{"remember: we use pnpm", "", RouteExplicit},
		{"{};\n{};", "", RouteIgnored},
		{"   ", "", RouteIgnored},
	}
	for _, tt := range tests {
		if prose, route := capturedProse(tt.text); prose != tt.prose || route != tt.route {
			t.Errorf("capturedProse(%q) = %q, %q; want %q, %q", tt.text, prose, route, tt.prose, tt.route)
		}
	}
}

func TestEnglishShare(t *testing.T) {
	if s := englishShare("please stop committing to the main branch without asking me"); s < NotEnglish {
		t.Errorf("English prompt read as %v", s)
	}
	if s := englishShare("lütfen her görevde stub fonksiyon yazma, tüm kodu eksiksiz uygula"); s >= NotEnglish {
		t.Errorf("Turkish prompt read as %v", s)
	}
}

// The split is written down and read back; a repository's side follows
// the fixed rule.
func TestRealSplitFile(t *testing.T) {
	dir := t.TempDir()
	labels := []RealLabel{{Repo: "b/x"}, {Repo: "a/y"}, {Repo: "b/x"}, {Repo: "c/z"}}
	if err := WriteRealSplit(dir, labels); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRealSplit(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/y": RealSplitOf("a/y"), "b/x": RealSplitOf("b/x"), "c/z": RealSplitOf("c/z")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("split (-want +got):\n%s", d)
	}
}

// The intervals are the same every run and hold the figure.
func TestIntervalsDeterministic(t *testing.T) {
	rs := []RealRepo{{Ordinary: 100, OrdinaryInbox: 3, Fit: 4, RightFirst: 1}, {Ordinary: 50, OrdinaryInbox: 0, Fit: 0}, {Ordinary: 80, OrdinaryInbox: 4, Fit: 2, RightFirst: 2}}
	sr := StreamReport{OrdinaryInbox: 7.0 / 230, RightRuleOrInbox: 3.0 / 6}
	a, b := intervals(rs, sr), intervals(rs, sr)
	if a != b {
		t.Fatalf("two runs differ: %+v, %+v", a, b)
	}
	if !(a.OrdinaryInbox.Low <= a.OrdinaryInbox.Value && a.OrdinaryInbox.Value <= a.OrdinaryInbox.High) ||
		!(a.RightRuleOrInbox.Low <= a.RightRuleOrInbox.Value && a.RightRuleOrInbox.Value <= a.RightRuleOrInbox.High) {
		t.Errorf("intervals do not hold their figures: %+v", a)
	}
}

// A label the derived figures do not cover, or a repository not in the
// split, is an error naming the generator; a corpus that is complete loads.
func TestLoadRealCorpusComplete(t *testing.T) {
	dir := t.TempDir()
	der := filepath.Join(dir, "derived")
	ps := []DerivedPrompt{{SHA256: "aa", Route: RouteIgnored, English: 1}}
	if err := WriteDerived(der, DerivedMeta{Format: DerivedFormat, Model: "m@1", Registry: "r", Prompts: 1, Shards: derivedShards}, ps); err != nil {
		t.Fatal(err)
	}
	labels := []RealLabel{{Repo: "o/a", SHA256: "aa", Label: "ordinary"}}
	if err := WriteRealSplit(der, labels); err != nil {
		t.Fatal(err)
	}
	write := func(lines ...string) {
		var b []byte
		for _, l := range lines {
			b = append(b, l+"\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, "labels.jsonl"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"repo":"o/a","sha256":"aa","label":"ordinary"}`)
	if _, err := LoadRealCorpus(dir); err != nil {
		t.Fatalf("complete corpus: %v", err)
	}
	for _, line := range []string{`{"repo":"o/a","sha256":"bb","label":"ordinary"}`, `{"repo":"o/new","sha256":"aa","label":"ordinary"}`} {
		write(line)
		if _, err := LoadRealCorpus(dir); err == nil || !strings.Contains(err.Error(), "go run ./eval/realprompts/derived") {
			t.Errorf("%s: err %v, want one naming the generator", line, err)
		}
	}
}
