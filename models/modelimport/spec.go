package modelimport

import (
	"encoding/json"
	"strings"
)

// Spec is the model an import must be: its architecture, its
// sentence-transformers head and the checksum of its official weights file.
// Import refuses a source that differs from it in any of these, and fills in
// the files a source lacks (config.json, the sentence-transformers configs,
// the tokenizer configs) from it.
type Spec struct {
	Name           string  // the model folder's name, e.g. "all-MiniLM-L6-v2"
	Repo           string  // the Hugging Face repository, e.g. "sentence-transformers/all-MiniLM-L6-v2"
	NameOrPath     string  // config.json's _name_or_path written when config.json is filled in
	Architecture   string  // config.json's architectures[0]: "BertModel"
	ModelType      string  // config.json's model_type: "bert"
	Layers         int     // num_hidden_layers
	Hidden         int     // hidden_size
	Heads          int     // num_attention_heads
	Intermediate   int     // intermediate_size
	Vocab          int     // vocab_size
	MaxPositions   int     // max_position_embeddings
	TypeVocab      int     // type_vocab_size
	Act            string  // hidden_act: "gelu" (the erf form)
	PositionType   string  // position_embedding_type: "absolute"
	LayerNormEps   float64 // layer_norm_eps
	MaxSeqLength   int     // sentence_bert_config.json's max_seq_length
	OfficialSHA256 string  // the official model.safetensors' sha256 ("" when unknown)
}

// MiniLM is sentence-transformers/all-MiniLM-L6-v2: a 6-layer BERT with
// hidden size 384, mean pooling over tokens and L2 normalisation, texts cut
// at 256 tokens. OfficialSHA256 is the LFS sha256 of the repository's
// model.safetensors.
var MiniLM = Spec{
	Name:           "all-MiniLM-L6-v2",
	Repo:           "sentence-transformers/all-MiniLM-L6-v2",
	NameOrPath:     "sentence-transformers/all-MiniLM-L6-v2",
	Architecture:   "BertModel",
	ModelType:      "bert",
	Layers:         6,
	Hidden:         384,
	Heads:          12,
	Intermediate:   1536,
	Vocab:          30522,
	MaxPositions:   512,
	TypeVocab:      2,
	Act:            "gelu",
	PositionType:   "absolute",
	LayerNormEps:   1e-12,
	MaxSeqLength:   256,
	OfficialSHA256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
}

// hfCacheFolder is the name of the spec's repository folder in a Hugging
// Face hub cache: models--{owner}--{name}.
func (s Spec) hfCacheFolder() string {
	return "models--" + strings.ReplaceAll(s.Repo, "/", "--")
}

// knownFiles are the files an import writes from the spec when the source
// lacks them, keyed by their path in the model folder. tokenizer.json and
// vocab.txt are not among them: the tokenizer must come from the source
// (vocab.txt is derived from tokenizer.json when absent).
func (s Spec) knownFiles() map[string][]byte {
	return map[string][]byte{
		"config.json": mustJSON(map[string]any{
			"_name_or_path":                s.NameOrPath,
			"architectures":                []string{s.Architecture},
			"attention_probs_dropout_prob": 0.1,
			"hidden_act":                   s.Act,
			"hidden_dropout_prob":          0.1,
			"hidden_size":                  s.Hidden,
			"initializer_range":            0.02,
			"intermediate_size":            s.Intermediate,
			"layer_norm_eps":               s.LayerNormEps,
			"max_position_embeddings":      s.MaxPositions,
			"model_type":                   s.ModelType,
			"num_attention_heads":          s.Heads,
			"num_hidden_layers":            s.Layers,
			"pad_token_id":                 0,
			"position_embedding_type":      s.PositionType,
			"type_vocab_size":              s.TypeVocab,
			"vocab_size":                   s.Vocab,
		}),
		"modules.json": mustJSON([]map[string]any{
			{"idx": 0, "name": "0", "path": "", "type": moduleTransformer},
			{"idx": 1, "name": "1", "path": "1_Pooling", "type": modulePooling},
			{"idx": 2, "name": "2", "path": "2_Normalize", "type": moduleNormalize},
		}),
		"1_Pooling/config.json": mustJSON(map[string]any{
			"word_embedding_dimension":          s.Hidden,
			"pooling_mode_cls_token":            false,
			"pooling_mode_mean_tokens":          true,
			"pooling_mode_max_tokens":           false,
			"pooling_mode_mean_sqrt_len_tokens": false,
		}),
		"sentence_bert_config.json": mustJSON(map[string]any{"max_seq_length": s.MaxSeqLength, "do_lower_case": false}),
		"tokenizer_config.json": mustJSON(map[string]any{
			"clean_up_tokenization_spaces": true,
			"cls_token":                    "[CLS]",
			"do_basic_tokenize":            true,
			"do_lower_case":                true,
			"mask_token":                   "[MASK]",
			"model_max_length":             s.MaxPositions,
			"never_split":                  nil,
			"pad_token":                    "[PAD]",
			"sep_token":                    "[SEP]",
			"strip_accents":                nil,
			"tokenize_chinese_chars":       true,
			"tokenizer_class":              "BertTokenizer",
			"unk_token":                    "[UNK]",
		}),
		"special_tokens_map.json": mustJSON(map[string]any{
			"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]", "unk_token": "[UNK]",
		}),
	}
}

// sentence-transformers module types.
const (
	moduleTransformer = "sentence_transformers.models.Transformer"
	modulePooling     = "sentence_transformers.models.Pooling"
	moduleNormalize   = "sentence_transformers.models.Normalize"
)

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
