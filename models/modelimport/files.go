package modelimport

import (
	"context"
	"fmt"
	"strings"

	"github.com/lexsona/lexsona/engine"
)

// readChecked reads and checks every file of the source, filling in the
// ones it lacks from spec, and returns the model folder's files (without
// model.onnx) and a function that makes model.onnx: the graph built from
// the weights, or the source's graph.
func readChecked(ctx context.Context, src *source, spec Spec, p *Provenance) (map[string][]byte, func() ([]byte, error), error) {
	files := map[string][]byte{}
	known := spec.knownFiles()
	fill := func(name, why string) {
		files[name] = known[name]
		p.FilledIn = append(p.FilledIn, fmt.Sprintf("%s: %s, written from %s's known values", name, why, spec.Name))
	}

	tok, _, err := src.readFile("tokenizer.json")
	if err != nil {
		return nil, nil, err
	}
	vocab, err := checkTokenizer(tok, spec)
	if err != nil {
		return nil, nil, err
	}
	files["tokenizer.json"] = tok
	p.Checks = append(p.Checks, fmt.Sprintf("tokenizer: WordPiece, %d tokens", spec.Vocab))
	if b, ok, err := src.readFile("vocab.txt"); err != nil {
		return nil, nil, err
	} else if ok {
		if strings.TrimRight(string(b), "\n") != strings.TrimRight(string(vocab), "\n") {
			return nil, nil, engine.Errorf(engine.EINVALID, "vocab.txt differs from tokenizer.json's vocabulary: the tokenizer files are not of one model")
		}
		files["vocab.txt"] = b
	} else {
		files["vocab.txt"] = vocab
		p.FilledIn = append(p.FilledIn, "vocab.txt: absent, written from tokenizer.json's vocabulary")
	}

	if b, ok, err := src.readFile("config.json"); err != nil {
		return nil, nil, err
	} else if ok {
		line, err := checkConfig(b, spec)
		if err != nil {
			return nil, nil, err
		}
		files["config.json"] = b
		p.Checks = append(p.Checks, line+" (config.json)")
	} else {
		fill("config.json", "absent")
		p.Checks = append(p.Checks, "architecture: not checked from a config (none in the source); the weights are checked")
	}

	pooling := "1_Pooling"
	if b, ok, err := src.readFile("modules.json"); err != nil {
		return nil, nil, err
	} else if ok {
		if pooling, err = checkModules(b, spec); err != nil {
			return nil, nil, err
		}
		files["modules.json"] = b
		p.Checks = append(p.Checks, "normalisation: a Normalize module (modules.json)")
	} else {
		fill("modules.json", "absent (Transformer, Pooling, Normalize)")
		p.Checks = append(p.Checks, "normalisation: not checked from a config (none in the source); a Normalize module written")
	}
	poolCfg := pooling + "/config.json"
	if b, ok, err := src.readFile(poolCfg); err != nil {
		return nil, nil, err
	} else if ok {
		if err := checkPooling(poolCfg, b, spec); err != nil {
			return nil, nil, err
		}
		files[poolCfg] = b
		p.Checks = append(p.Checks, "pooling: mean of the tokens ("+poolCfg+")")
	} else {
		files[poolCfg] = known["1_Pooling/config.json"]
		p.Checks = append(p.Checks, "pooling: not checked from a config (none in the source); mean of the tokens written")
		p.FilledIn = append(p.FilledIn, fmt.Sprintf("%s: absent (mean pooling), written from %s's known values", poolCfg, spec.Name))
	}
	if b, ok, err := src.readFile("sentence_bert_config.json"); err != nil {
		return nil, nil, err
	} else if ok {
		if err := checkSentenceBert(b, spec); err != nil {
			return nil, nil, err
		}
		files["sentence_bert_config.json"] = b
		p.Checks = append(p.Checks, fmt.Sprintf("max_seq_length %d (sentence_bert_config.json)", spec.MaxSeqLength))
	} else {
		fill("sentence_bert_config.json", fmt.Sprintf("absent (max_seq_length %d)", spec.MaxSeqLength))
	}
	for _, name := range []string{"tokenizer_config.json", "special_tokens_map.json", "config_sentence_transformers.json"} {
		if b, ok, err := src.readFile(name); err != nil {
			return nil, nil, err
		} else if ok {
			files[name] = b
		} else if _, isKnown := known[name]; isKnown {
			fill(name, "absent")
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, engine.Errorf(engine.EUNAVAILABLE, "the import was cancelled: %v", err)
	}

	if _, ok := src.files["model.safetensors"]; ok {
		b, _, err := src.readFile("model.safetensors")
		if err != nil {
			return nil, nil, err
		}
		p.SafetensorsSHA256 = src.read["model.safetensors"]
		p.OfficialSHA256 = spec.OfficialSHA256
		switch {
		case spec.OfficialSHA256 == "":
			p.Official = noOfficialSum
		case p.SafetensorsSHA256 == spec.OfficialSHA256:
			p.Official = OfficialBytes
		default:
			p.Official = Resaved
		}
		weights, line, err := readWeights(b, spec)
		if err != nil {
			return nil, nil, err
		}
		p.Checks = append(p.Checks, line)
		p.Graph = fmt.Sprintf("built from model.safetensors by %s (ONNX opset %d, standard operators)", GraphVersion, graphOpset)
		return files, func() ([]byte, error) { return buildGraph(spec, weights) }, nil
	}
	b, _, err := src.readFile("model.onnx")
	if err != nil {
		return nil, nil, err
	}
	checks, err := checkONNX(b, spec)
	if err != nil {
		return nil, nil, err
	}
	p.Checks = append(p.Checks, checks...)
	p.Official = noSafetensors
	p.Graph = "copied from " + src.files["model.onnx"].name
	return files, func() ([]byte, error) { return b, nil }, nil
}
