package models

// TokenCounter is an embedder that can say how many tokens of its model each
// text becomes — [CLS] and [SEP] included, after truncation at the model's
// maximum length — which is what OpenAI-style usage counts. The ort and go
// backends are TokenCounters; the lexical embedder, which has no model
// tokens, is not. Errors: the tokenizer's (EINTERNAL).
type TokenCounter interface {
	CountTokens(texts []string) ([]int, error)
}

var (
	_ TokenCounter = (*ortEmbedder)(nil)
	_ TokenCounter = (*goEmbedder)(nil)
)

// countTokens is CountTokens over a tokenizer.
func countTokens(tok *Tokenizer, texts []string) ([]int, error) {
	out := make([]int, len(texts))
	for i, t := range texts {
		enc, err := tok.Encode(t)
		if err != nil {
			return nil, err
		}
		out[i] = enc.Len()
	}
	return out, nil
}

// CountTokens implements TokenCounter.
func (e *ortEmbedder) CountTokens(texts []string) ([]int, error) { return countTokens(e.tok, texts) }

// CountTokens implements TokenCounter.
func (e *goEmbedder) CountTokens(texts []string) ([]int, error) { return countTokens(e.tok, texts) }
