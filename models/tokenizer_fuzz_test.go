package models_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/models"
	"github.com/lexsona/lexsona/models/modeltest"
)

// FuzzTokenize feeds arbitrary bytes — invalid UTF-8, NUL and control
// characters, special-token strings, very long inputs — to the real
// all-MiniLM-L6-v2 tokenizer. Encode must never fail or panic, and must
// return [CLS] … [SEP], at most MaxSeqLength ids, every one within the
// vocabulary, all token types 0, the same ids on a second call, and a row
// PadBatch pads without loss. Run with
//
//	go test -run '^$' -fuzz '^FuzzTokenize$' -fuzztime 20s ./models/
//
// It needs ../shared/models/all-MiniLM-L6-v2/tokenizer.json (it skips,
// naming the path, without it). Seeds: the reference texts, the f.Add calls
// and testdata/fuzz/FuzzTokenize.
func FuzzTokenize(f *testing.F) {
	tok := modeltest.MustTokenizer(f)
	vocab := int64(tok.VocabSize())
	// [CLS] and [SEP] as Transformers.js encoded them, not as Encode does.
	ref := modeltest.MustTokenReference(f).Items[0].InputIDs
	cls, sep := ref[0], ref[len(ref)-1]
	if vocab < 30000 {
		f.Fatalf("vocabulary of %d tokens: not all-MiniLM-L6-v2's", vocab)
	}
	var texts []string
	modeltest.MustReadJSON(f, filepath.Join("testdata", "reference", "texts.json"), &texts)
	for _, s := range texts {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		"", "\xff\xfe\xfd", "caf\xc3", "\xed\xa0\x80 surrogate", "\x00\x01\x02 controls \x7f",
		"[CLS][SEP][PAD][MASK][UNK]", "[CLS", "a[SEP]b[SEP]", "\u200b\u200d\ufeff", "e\u0301\u0301\u0301",
		strings.Repeat("supercalifragilistic", 200), strings.Repeat("字", 600), strings.Repeat("🚀 ", 300),
		strings.Repeat("a ", 1000), "CORRECT[tool.no-sed]: x'); DROP TABLE persona_rules; --",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		text := string(b)
		enc, err := tok.Encode(text)
		if err != nil {
			t.Fatalf("Encode(%q): %v", clipFuzz(text), err)
		}
		n := enc.Len()
		if n < 2 || n > models.MaxSeqLength {
			t.Fatalf("Encode(%q): %d ids, want 2 to %d", clipFuzz(text), n, models.MaxSeqLength)
		}
		if enc.IDs[0] != cls || enc.IDs[n-1] != sep {
			t.Fatalf("Encode(%q) = %v…%v: want [CLS] first and [SEP] last", clipFuzz(text), enc.IDs[0], enc.IDs[n-1])
		}
		for i, id := range enc.IDs {
			if id < 0 || id >= vocab {
				t.Fatalf("Encode(%q): id %d at %d is outside the vocabulary of %d", clipFuzz(text), id, i, vocab)
			}
		}
		if len(enc.TypeIDs) != n || slices.ContainsFunc(enc.TypeIDs, func(x int64) bool { return x != 0 }) {
			t.Fatalf("Encode(%q): token types %v, want %d zeros", clipFuzz(text), enc.TypeIDs, n)
		}
		again, err := tok.Encode(text)
		if err != nil || !slices.Equal(again.IDs, enc.IDs) {
			t.Fatalf("Encode(%q) is not deterministic: %v then %v (%v)", clipFuzz(text), enc.IDs, again.IDs, err)
		}
		short, _ := tok.Encode("ok")
		pb := models.PadBatch([]models.Encoding{enc, short})
		if pb.SeqLen != max(n, short.Len()) || !slices.Equal(pb.InputIDs[:n], enc.IDs) || slices.Contains(pb.AttentionMask[:n], 0) {
			t.Fatalf("PadBatch lost the encoding of %q", clipFuzz(text))
		}
	})
}

func clipFuzz(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
