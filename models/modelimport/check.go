package modelimport

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// differs is the EINVALID error for a source that is not spec's model: what
// (a file) and each difference, "num_hidden_layers is 12, all-MiniLM-L6-v2 has 6".
func differs(what string, diffs []string) error {
	return engine.Errorf(engine.EINVALID, "%s: %s", what, strings.Join(diffs, "; "))
}

// bertConfig is what the checks read from config.json; nil means absent.
type bertConfig struct {
	Architectures []string `json:"architectures"`
	ModelType     *string  `json:"model_type"`
	Layers        *int     `json:"num_hidden_layers"`
	Hidden        *int     `json:"hidden_size"`
	Heads         *int     `json:"num_attention_heads"`
	Intermediate  *int     `json:"intermediate_size"`
	Vocab         *int     `json:"vocab_size"`
	MaxPositions  *int     `json:"max_position_embeddings"`
	TypeVocab     *int     `json:"type_vocab_size"`
	Act           *string  `json:"hidden_act"`
	PositionType  *string  `json:"position_embedding_type"`
	Eps           *float64 `json:"layer_norm_eps"`
}

// checkConfig compares config.json with spec. Fields transformers' BertConfig
// defaults (hidden_act, position_embedding_type, layer_norm_eps,
// max_position_embeddings, type_vocab_size) take that default when absent;
// the sizes must be there. Error: EINVALID listing every difference.
func checkConfig(b []byte, spec Spec) (string, error) {
	var c bertConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return "", engine.Errorf(engine.EINVALID, "config.json is not valid JSON: %v", err)
	}
	var diffs []string
	str := func(field string, got *string, def, want string) {
		v := def
		if got != nil {
			v = *got
		}
		if v != want {
			diffs = append(diffs, fmt.Sprintf("%s is %q, %s has %q", field, v, spec.Name, want))
		}
	}
	num := func(field string, got *int, def, want int) {
		switch {
		case got == nil && def == 0:
			diffs = append(diffs, fmt.Sprintf("%s is missing, %s has %d", field, spec.Name, want))
		case got == nil && def != want:
			diffs = append(diffs, fmt.Sprintf("%s is missing (BERT's default %d), %s has %d", field, def, spec.Name, want))
		case got != nil && *got != want:
			diffs = append(diffs, fmt.Sprintf("%s is %d, %s has %d", field, *got, spec.Name, want))
		}
	}
	if len(c.Architectures) > 0 && !slices.Contains(c.Architectures, spec.Architecture) {
		diffs = append(diffs, fmt.Sprintf("architectures is %v, %s is a %s", c.Architectures, spec.Name, spec.Architecture))
	}
	str("model_type", c.ModelType, "", spec.ModelType)
	num("num_hidden_layers", c.Layers, 0, spec.Layers)
	num("hidden_size", c.Hidden, 0, spec.Hidden)
	num("num_attention_heads", c.Heads, 0, spec.Heads)
	num("intermediate_size", c.Intermediate, 0, spec.Intermediate)
	num("vocab_size", c.Vocab, 0, spec.Vocab)
	num("max_position_embeddings", c.MaxPositions, 512, spec.MaxPositions)
	num("type_vocab_size", c.TypeVocab, 2, spec.TypeVocab)
	str("hidden_act", c.Act, "gelu", spec.Act)
	str("position_embedding_type", c.PositionType, "absolute", spec.PositionType)
	eps := 1e-12
	if c.Eps != nil {
		eps = *c.Eps
	}
	if math.Abs(eps-spec.LayerNormEps) > 1e-6*spec.LayerNormEps {
		diffs = append(diffs, fmt.Sprintf("layer_norm_eps is %g, %s has %g", eps, spec.Name, spec.LayerNormEps))
	}
	if len(diffs) > 0 {
		return "", differs("config.json", diffs)
	}
	return fmt.Sprintf("architecture: %s, %d layers, hidden %d, %d heads, intermediate %d, vocab %d, %s, %s positions",
		spec.Architecture, spec.Layers, spec.Hidden, spec.Heads, spec.Intermediate, spec.Vocab, spec.Act, spec.PositionType), nil
}

// stModule is one entry of modules.json.
type stModule struct {
	Path string `json:"path"`
	Type string `json:"type"`
}

// checkModules checks that modules.json is Transformer → Pooling → Normalize
// and returns the Pooling module's folder. Error: EINVALID naming a module
// that is missing or of another type.
func checkModules(b []byte, spec Spec) (pooling string, err error) {
	var mods []stModule
	if err := json.Unmarshal(b, &mods); err != nil {
		return "", engine.Errorf(engine.EINVALID, "modules.json is not a list of modules: %v", err)
	}
	var types []string
	normalize := false
	for _, m := range mods {
		types = append(types, m.Type)
		switch m.Type {
		case moduleTransformer:
		case modulePooling:
			if m.Path == "" || m.Path == "." || m.Path == ".." || strings.ContainsAny(m.Path, `/\`) {
				return "", engine.Errorf(engine.EINVALID, "modules.json: the Pooling module's path %q is not a folder name", m.Path)
			}
			pooling = m.Path
		case moduleNormalize:
			normalize = true
		default:
			return "", differs("modules.json", []string{fmt.Sprintf("it has a %s module (path %q), %s has Transformer, Pooling and Normalize only", m.Type, m.Path, spec.Name)})
		}
	}
	var diffs []string
	if !slices.Contains(types, moduleTransformer) {
		diffs = append(diffs, "it has no Transformer module")
	}
	if pooling == "" {
		diffs = append(diffs, fmt.Sprintf("it has no Pooling module, %s pools the mean of the tokens", spec.Name))
	}
	if !normalize {
		diffs = append(diffs, fmt.Sprintf("it has no Normalize module, %s's vectors are L2-normalised", spec.Name))
	}
	if len(diffs) > 0 {
		return "", differs("modules.json", diffs)
	}
	return pooling, nil
}

// checkPooling checks a Pooling module's config.json: the mean of the token
// vectors and nothing else, of the model's width. Error: EINVALID naming
// the pooling it uses instead.
func checkPooling(name string, b []byte, spec Spec) error {
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return engine.Errorf(engine.EINVALID, "%s is not valid JSON: %v", name, err)
	}
	var diffs []string
	if v, _ := cfg["pooling_mode_mean_tokens"].(bool); !v {
		diffs = append(diffs, fmt.Sprintf("pooling_mode_mean_tokens is not true, %s pools the mean of the tokens", spec.Name))
	}
	for _, mode := range []string{"cls_token", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken"} {
		if v, _ := cfg["pooling_mode_"+mode].(bool); v {
			diffs = append(diffs, fmt.Sprintf("pooling_mode_%s is true, %s pools the mean of the tokens only", mode, spec.Name))
		}
	}
	if d, ok := cfg["word_embedding_dimension"].(float64); ok && int(d) != spec.Hidden {
		diffs = append(diffs, fmt.Sprintf("word_embedding_dimension is %d, %s has %d", int(d), spec.Name, spec.Hidden))
	}
	if len(diffs) > 0 {
		return differs(name, diffs)
	}
	return nil
}

// checkSentenceBert checks sentence_bert_config.json's max_seq_length.
func checkSentenceBert(b []byte, spec Spec) error {
	var cfg struct {
		MaxSeqLength *int `json:"max_seq_length"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return engine.Errorf(engine.EINVALID, "sentence_bert_config.json is not valid JSON: %v", err)
	}
	if cfg.MaxSeqLength != nil && *cfg.MaxSeqLength != spec.MaxSeqLength {
		return differs("sentence_bert_config.json", []string{fmt.Sprintf("max_seq_length is %d, %s has %d", *cfg.MaxSeqLength, spec.Name, spec.MaxSeqLength)})
	}
	return nil
}

// checkTokenizer checks that tokenizer.json is a WordPiece tokenizer with
// the model's vocabulary size and returns its vocabulary as vocab.txt (one
// token a line, in id order). Error: EINVALID naming what differs.
func checkTokenizer(b []byte, spec Spec) (vocabTxt []byte, err error) {
	var t struct {
		Model struct {
			Type  string         `json:"type"`
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, engine.Errorf(engine.EINVALID, "tokenizer.json is not a tokenizer: %v", err)
	}
	if t.Model.Type != "" && t.Model.Type != "WordPiece" {
		return nil, differs("tokenizer.json", []string{fmt.Sprintf("its model is %s, %s's is WordPiece", t.Model.Type, spec.Name)})
	}
	if len(t.Model.Vocab) != spec.Vocab {
		return nil, differs("tokenizer.json", []string{fmt.Sprintf("its vocabulary has %d tokens, %s's has %d", len(t.Model.Vocab), spec.Name, spec.Vocab)})
	}
	tokens := make([]string, len(t.Model.Vocab))
	for tok, id := range t.Model.Vocab {
		if id < 0 || id >= len(tokens) || tokens[id] != "" {
			return nil, differs("tokenizer.json", []string{fmt.Sprintf("its vocabulary ids are not 0..%d (token %q has id %d)", len(tokens)-1, tok, id)})
		}
		tokens[id] = tok
	}
	return []byte(strings.Join(tokens, "\n") + "\n"), nil
}
