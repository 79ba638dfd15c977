package models_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// TestTokenizerMatchesReference compares every text's ids with those
// Transformers.js produced from the same tokenizer.json.
func TestTokenizerMatchesReference(t *testing.T) {
	tok := modeltest.MustTokenizer(t)
	ref := modeltest.MustTokenReference(t)
	if sum, err := models.FileSHA256(tok.Path()); err != nil || sum != ref.TokenizerSHA256 {
		t.Fatalf("%s has sha256 %s, the reference was made from %s: regenerate testdata/reference (make fixtures)", tok.Path(), sum, ref.TokenizerSHA256)
	}
	if ref.MaxSeqLength != models.MaxSeqLength || len(ref.Items) < 60 {
		t.Fatalf("reference: max_seq_length %d, %d items; want %d and >= 60", ref.MaxSeqLength, len(ref.Items), models.MaxSeqLength)
	}
	for i, it := range ref.Items {
		enc, err := tok.Encode(it.Text)
		if err != nil {
			t.Fatalf("item %d %q: %v", i, it.Text, err)
		}
		if d := cmp.Diff(it.InputIDs, enc.IDs); d != "" {
			t.Errorf("item %d %q: ids differ from Transformers.js (-want +got):\n%s", i, it.Text, d)
		}
		if len(enc.TypeIDs) != len(enc.IDs) || strings.Trim(strings.Repeat("0", len(enc.TypeIDs)), "0") != "" {
			t.Errorf("item %d: token type ids %v, want all 0", i, enc.TypeIDs)
		}
	}
}

func TestTokenizerEdges(t *testing.T) {
	tok := modeltest.MustTokenizer(t)
	tests := []struct {
		name, text string
		wantLen    int
	}{
		{"empty", "", 2},
		{"only spaces", "   \t\n", 2},
		{"zero-width", "\u200b\u200d", 2},
		{"invalid utf-8", "\xff\xfe", 2}, // read as U+FFFD, which clean_text drops
		{"special tokens", "[CLS][MASK]", 4},
		{"accents", "Café", 3},
		{"truncated", strings.Repeat("word ", 1000), models.MaxSeqLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc, err := tok.Encode(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if enc.Len() != tt.wantLen || enc.IDs[0] != 101 || enc.IDs[enc.Len()-1] != 102 {
				t.Errorf("got %d ids %v…, want %d starting [CLS] and ending [SEP]", enc.Len(), enc.IDs[:min(5, enc.Len())], tt.wantLen)
			}
		})
	}
}

func TestTokenizerConcurrent(t *testing.T) {
	tok := modeltest.MustTokenizer(t)
	texts := modeltest.ReferenceTexts(t)
	want, err := tok.EncodeBatch(texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := tok.EncodeBatch(texts)
			if err != nil {
				t.Error(err)
				return
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("concurrent encoding differs:\n%s", d)
			}
		})
	}
	wg.Wait()
}

func TestPadBatch(t *testing.T) {
	tests := []struct {
		name string
		in   []models.Encoding
		want models.Batch
	}{
		{"empty", nil, models.Batch{InputIDs: []int64{}, AttentionMask: []int64{}, TokenTypeIDs: []int64{}}},
		{"one", []models.Encoding{{IDs: []int64{101, 7, 102}, TypeIDs: []int64{0, 0, 0}}},
			models.Batch{Size: 1, SeqLen: 3, InputIDs: []int64{101, 7, 102}, AttentionMask: []int64{1, 1, 1}, TokenTypeIDs: []int64{0, 0, 0}}},
		{"pads to longest", []models.Encoding{
			{IDs: []int64{101, 102}, TypeIDs: []int64{0, 0}},
			{IDs: []int64{101, 5, 6, 102}, TypeIDs: []int64{0, 0, 0, 0}},
		}, models.Batch{Size: 2, SeqLen: 4,
			InputIDs:      []int64{101, 102, 0, 0, 101, 5, 6, 102},
			AttentionMask: []int64{1, 1, 0, 0, 1, 1, 1, 1},
			TokenTypeIDs:  []int64{0, 0, 0, 0, 0, 0, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, models.PadBatch(tt.in)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestLoadTokenizerErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "tokenizer.json"), []byte(`{"model": 42`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, dir, want string }{
		{"missing", filepath.Join(dir, "nope"), filepath.Join(dir, "nope", "tokenizer.json")},
		{"malformed", bad, filepath.Join(bad, "tokenizer.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := models.LoadTokenizer(tt.dir, 0)
			modeltest.WantErr(t, err, engine.EUNAVAILABLE, tt.want, "lexsona model pull")
		})
	}
}

// BenchmarkTokenize is the tokenizer's share of the pipeline, per text.
func BenchmarkTokenize(b *testing.B) {
	tok := modeltest.MustTokenizer(b)
	texts := modeltest.ReferenceTexts(b)
	for i := 0; b.Loop(); i++ {
		if _, err := tok.Encode(texts[i%len(texts)]); err != nil {
			b.Fatal(err)
		}
	}
}
