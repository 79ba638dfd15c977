package models

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/lexsona/lexsona/engine"
)

// MaxSeqLength is all-MiniLM-L6-v2's max_seq_length: longer texts are
// truncated to this many tokens, [CLS] and [SEP] included.
const MaxSeqLength = 256

// Tokenizer turns texts into BERT inputs exactly as sentence-transformers does
// for all-MiniLM-L6-v2, from the model folder's tokenizer.json: its added
// tokens, BertNormalizer (bertNormConfig.normalize) and BertPreTokenizer
// applied here, its WordPiece model (vocabulary, ## prefix, 100-character
// limit) run by github.com/sugarme/tokenizer, truncated at MaxSeqLength,
// without the fixed padding to 128 that tokenizer.json asks for (batches are
// padded to their longest text instead, see PadBatch). The library's own
// normaliser and pre-tokenizer are bypassed: the first mangles accents and
// Unicode spaces, the second allocates heavily (8× slower). Safe for
// concurrent use.
type Tokenizer struct {
	tk       *tokenizer.Tokenizer
	maxLen   int
	path     string
	cls, sep int64
	norm     bertNormConfig
	added    []addedToken // matched in the raw text, before normalisation
}

// addedToken is one of tokenizer.json's added_tokens ([CLS], [MASK], …):
// found verbatim in a text, it becomes its id, as in the Rust tokenizers and
// Transformers.js.
type addedToken struct {
	Content string `json:"content"`
	ID      int64  `json:"id"`
}

// Encoding is one tokenized text: token ids and token type ids, [CLS] and
// [SEP] included, unpadded (its attention mask is all ones).
type Encoding struct {
	IDs     []int64
	TypeIDs []int64
}

// Len is the number of tokens.
func (e Encoding) Len() int { return len(e.IDs) }

// LoadTokenizer reads dir/tokenizer.json. maxLen <= 0 means MaxSeqLength.
// A missing or unreadable file is an EUNAVAILABLE error naming the path.
func LoadTokenizer(dir string, maxLen int) (*Tokenizer, error) {
	if maxLen <= 0 {
		maxLen = MaxSeqLength
	}
	path := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE,
			"no tokenizer at %s (%v): the model folder is incomplete; %s", path, StatCause(err), refetchHint)
	}
	tk, err := loadTokenizerFile(path)
	if err != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE,
			"cannot read the tokenizer %s: %v; %s", path, err, refetchHint)
	}
	t := &Tokenizer{tk: tk, maxLen: maxLen, path: path}
	var cfg struct {
		AddedTokens []addedToken   `json:"added_tokens"`
		Normalizer  bertNormConfig `json:"normalizer"`
	}
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &cfg) != nil {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "cannot read the tokenizer %s: %s", path, refetchHint)
	}
	if cfg.Normalizer.Type != "BertNormalizer" {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the tokenizer %s has a %q normalizer, not BertNormalizer: it is not all-MiniLM-L6-v2's; %s", path, cfg.Normalizer.Type, refetchHint)
	}
	t.norm = cfg.Normalizer
	for _, a := range cfg.AddedTokens {
		if a.Content != "" {
			t.added = append(t.added, a)
		}
	}
	// Longest first, so that a token containing another wins.
	slices.SortStableFunc(t.added, func(a, b addedToken) int { return len(b.Content) - len(a.Content) })
	cls, ok1 := tk.TokenToId("[CLS]")
	sep, ok2 := tk.TokenToId("[SEP]")
	if !ok1 || !ok2 {
		return nil, engine.Errorf(engine.EUNAVAILABLE, "the tokenizer %s has no [CLS] or [SEP] token: it is not a BERT tokenizer; %s", path, refetchHint)
	}
	t.cls, t.sep = int64(cls), int64(sep)
	// Only the library's WordPiece model is used (see Encode), so
	// tokenizer.json's fixed padding and truncation at 128 never apply.
	return t, nil
}

// loadTokenizerFile wraps pretrained.FromFile, which panics on some malformed
// files instead of returning an error.
func loadTokenizerFile(path string) (tk *tokenizer.Tokenizer, err error) {
	defer func() {
		if r := recover(); r != nil {
			tk, err = nil, fmt.Errorf("malformed tokenizer.json: %v", r)
		}
	}()
	return pretrained.FromFile(path)
}

// VocabSize is the number of tokens in the vocabulary, added tokens included.
func (t *Tokenizer) VocabSize() int { return t.tk.GetVocabSize(true) }

// Path is the tokenizer.json the tokenizer was read from.
func (t *Tokenizer) Path() string { return t.path }

// Encode tokenizes one text: tokenizer.json's added tokens ([CLS], [MASK], …)
// where they occur verbatim, BERT normalisation of the rest, pre-tokenization
// and the library's WordPiece, truncation to maxLen - 2,
// then [CLS] … [SEP]. A text that is empty after normalisation gives
// [CLS] [SEP], as in sentence-transformers.
func (t *Tokenizer) Encode(text string) (enc Encoding, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = engine.Errorf(engine.EINTERNAL, "tokenizer failed: %v", r)
		}
	}()
	ids := []int64{t.cls}
	limit := t.maxLen - 1
	for len(text) > 0 && len(ids) < limit {
		seg, tok, rest := t.splitAdded(text)
		var err error
		if ids, err = t.appendWordPieces(ids, t.norm.normalize(seg), limit); err != nil {
			return Encoding{}, err
		}
		if tok != nil {
			ids = append(ids, tok.ID)
		}
		text = rest
	}
	if len(ids) > limit {
		ids = ids[:limit]
	}
	ids = append(ids, t.sep)
	return Encoding{IDs: ids, TypeIDs: make([]int64, len(ids))}, nil
}

// splitAdded finds the first added token in text: text before it, the token
// (nil when there is none) and the text after it.
func (t *Tokenizer) splitAdded(text string) (string, *addedToken, string) {
	best, at := -1, len(text)
	for i := range t.added {
		if j := strings.Index(text[:min(len(text), at+len(t.added[i].Content))], t.added[i].Content); j >= 0 && j < at {
			best, at = i, j
		}
	}
	if best < 0 {
		return text, nil, ""
	}
	a := &t.added[best]
	return text[:at], a, text[at+len(a.Content):]
}

// EncodeBatch tokenizes texts in order. An error names the index of the text.
func (t *Tokenizer) EncodeBatch(texts []string) ([]Encoding, error) {
	out := make([]Encoding, len(texts))
	for i, s := range texts {
		e, err := t.Encode(s)
		if err != nil {
			return nil, fmt.Errorf("text %d: %w", i, err)
		}
		out[i] = e
	}
	return out, nil
}

// CountTokens is the number of tokens each text becomes (see TokenCounter).
// Errors: the tokenizer's, EINTERNAL.
func (t *Tokenizer) CountTokens(texts []string) ([]int, error) {
	out := make([]int, len(texts))
	for i, s := range texts {
		enc, err := t.Encode(s)
		if err != nil {
			return nil, err
		}
		out[i] = enc.Len()
	}
	return out, nil
}

// Batch is a padded batch of encodings, row-major [Size][SeqLen], as the
// model's input_ids, attention_mask and token_type_ids inputs want them.
type Batch struct {
	Size, SeqLen  int
	InputIDs      []int64
	AttentionMask []int64
	TokenTypeIDs  []int64
}

// PadBatch pads encs on the right to the longest of them with [PAD] (id 0),
// attention mask 0 and token type 0.
func PadBatch(encs []Encoding) Batch {
	seq := 0
	for _, e := range encs {
		seq = max(seq, e.Len())
	}
	n := len(encs) * seq
	b := Batch{Size: len(encs), SeqLen: seq,
		InputIDs: make([]int64, n), AttentionMask: make([]int64, n), TokenTypeIDs: make([]int64, n)}
	for i, e := range encs {
		row := i * seq
		copy(b.InputIDs[row:], e.IDs)
		copy(b.TokenTypeIDs[row:], e.TypeIDs)
		for j := range e.IDs {
			b.AttentionMask[row+j] = 1
		}
	}
	return b
}

// StatCause shortens an *os.PathError to its cause, for messages that name
// the path already.
func StatCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// appendWordPieces pre-tokenizes normalised text as BertPreTokenizer does
// (split on whitespace, every punctuation character a word of its own),
// runs the library's WordPiece on each word and appends the ids, stopping
// once ids holds limit: a 100 kB text costs no more than its first words.
func (t *Tokenizer) appendWordPieces(ids []int64, text string, limit int) ([]int64, error) {
	model := t.tk.GetModel()
	word := func(w string) error {
		toks, err := model.Tokenize(w)
		if err != nil {
			return engine.Errorf(engine.EINTERNAL, "tokenizer failed on %q: %v", w, err)
		}
		for _, tk := range toks {
			ids = append(ids, int64(tk.Id))
		}
		return nil
	}
	start := -1 // start of the current word, -1 between words
	for i, r := range text {
		if len(ids) >= limit {
			return ids, nil
		}
		space, punct := unicode.IsSpace(r), normalizer.IsBertPunctuation(r)
		if (space || punct) && start >= 0 {
			if err := word(text[start:i]); err != nil {
				return nil, err
			}
			start = -1
		}
		switch {
		case punct:
			if err := word(string(r)); err != nil {
				return nil, err
			}
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 && len(ids) < limit {
		if err := word(text[start:]); err != nil {
			return nil, err
		}
	}
	return ids, nil
}
