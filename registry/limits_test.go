package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/registry/registrytest"
)

// billionLaughs is the classic YAML bomb: nine levels of nine aliases expand
// to 9^9 (387 million) strings.
func billionLaughs() []byte {
	var b strings.Builder
	b.WriteString("version: 1\nlol0: &l0 \"lol\"\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "lol%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("rules:\n  - rule_id: a\n    category: c\n    severity: must\n    template: *l9\n")
	return []byte(b.String())
}

// TestYAMLBomb checks that a billion-laughs file is refused with a clear
// error and without expanding anything: the bound is on memory allocated,
// which is deterministic (timing belongs in BenchmarkParseYAMLBomb).
func TestYAMLBomb(t *testing.T) {
	data := billionLaughs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Parse(data, "bomb.yaml")
	runtime.ReadMemStats(&after)
	if engine.ErrorCode(err) != engine.EINVALID {
		t.Fatalf("Parse(bomb) = %v: want EINVALID", err)
	}
	ps := Problems(err)
	var anchors, aliases int
	for _, p := range ps {
		switch {
		case strings.HasPrefix(p.Message, "anchor &"):
			anchors++
		case strings.HasPrefix(p.Message, "alias *"):
			aliases++
		default:
			t.Errorf("unexpected problem %s", p.Format("bomb.yaml"))
		}
	}
	if anchors != 10 || aliases != 82 { // l0…l9; 9×9 in the lists and 1 in the rule

		t.Errorf("%d anchors, %d aliases reported: want 10 and 82", anchors, aliases)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("parsing a %d-byte bomb allocated %d bytes", len(data), got)
	}
}

// TestDeepNesting checks yaml.v3's depth limit surfaces as a syntax problem
// and that nesting just under it does not exhaust anything either.
func TestDeepNesting(t *testing.T) {
	deep := func(n int) []byte {
		return []byte("version: 1\nrules: []\nx: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
	}
	_, err := Parse(deep(20_000), "deep.yaml")
	if ps := Problems(err); len(ps) != 1 || !strings.Contains(ps[0].Message, "exceeded max depth") {
		t.Errorf("20,000 levels: %v", err)
	}
	_, err = Parse(deep(9_000), "deep.yaml")
	if ps := Problems(err); len(ps) != 1 || ps[0].Message != `unknown key "x" in the registry: want version, name, rules` {
		t.Errorf("9,000 levels: %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	t.Run("Parse", func(t *testing.T) {
		data := make([]byte, MaxFileSize+1)
		_, err := Parse(data, "big.yaml")
		if engine.ErrorCode(err) != engine.ETOOLARGE || engine.ErrorMessage(err) != "registry big.yaml is 16777217 bytes: at most 16777216 (16 MiB)" {
			t.Errorf("Parse: %v", err)
		}
	})
	t.Run("Load", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "big.yaml")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(1 << 30); err != nil { // sparse: nothing is written or read
			t.Fatal(err)
		}
		f.Close()
		_, err = Load(path)
		if engine.ErrorCode(err) != engine.ETOOLARGE {
			t.Errorf("Load: %v: want ETOOLARGE", err)
		}
	})
	t.Run("rules", func(t *testing.T) {
		data := "version: 1\nrules:\n" + strings.Repeat("  - {}\n", MaxRules+1)
		_, err := Parse([]byte(data), "r.yaml")
		if engine.ErrorCode(err) != engine.ETOOLARGE || engine.ErrorMessage(err) != "r.yaml:3:3: 50001 rules: at most 50000" {
			t.Errorf("Parse: %v", err)
		}
	})
}

func TestTenThousandRules(t *testing.T) {
	data := registrytest.Generate(10_000)
	reg, err := Parse(data, "big.yaml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if reg.Len() != 10_000 || len(reg.Texts()) != 40_000 {
		t.Fatalf("%d rules, %d texts: want 10000 and 40000", reg.Len(), len(reg.Texts()))
	}
	d, line, ok := reg.Lookup("gen.rule-09999")
	if !ok || line != 2+9999*10+1 || d.Rule.Scope.String() != "*/p2/*[go,t3]" || d.Rule.Topic != "topic-0" {
		t.Errorf("Lookup: %+v line %d ok %v", d, line, ok)
	}
}

func BenchmarkParse10000(b *testing.B) {
	data := registrytest.Generate(10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "big.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDefault(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(defaultYAML, "default"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseYAMLBomb(b *testing.B) {
	data := billionLaughs()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "bomb.yaml"); err == nil {
			b.Fatal("bomb parsed")
		}
	}
}

// BenchmarkYAMLNodes10000 is the floor under BenchmarkParse10000: yaml.v3
// building the node tree of the same file, with no validation.
func BenchmarkYAMLNodes10000(b *testing.B) {
	data := registrytest.Generate(10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var n yaml.Node
		if err := yaml.Unmarshal(data, &n); err != nil {
			b.Fatal(err)
		}
	}
}
