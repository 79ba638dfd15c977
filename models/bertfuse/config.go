// Package bertfuse rebuilds a BERT sentence encoder's ONNX graph — the
// Hugging Face export of all-MiniLM-L6-v2, or any graph with the same named
// weights — with ONNX Runtime's fused CPU operators (com.microsoft
// EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu), the
// rewrite ONNX Runtime's Python transformers optimizer performs offline. The
// export's attention is some twenty small operators per layer (Reshape,
// Transpose, Div, Softmax, the mask arithmetic) that ONNX Runtime's runtime
// fusions do not match in opset ≥ 13 exports. Measured pass by pass against
// the export (models.BenchmarkVersusTransformersJS, fused-x): 1.00–1.03× on
// a quiet 2-core VM, up to 1.17× when other work competes for the cores —
// fewer operators mean fewer thread-pool hand-offs, which is what contention
// makes dear; the matrix products, most of the time, are the same kernels.
//
// Fuse works from the weights, not from operator patterns: it finds each
// tensor by its parameter name (the bias and LayerNorm names the export keeps)
// and the MatMul that feeds each bias, checks every shape against config.json,
// and writes a new graph. It never checks that the result computes the same
// function — the caller must (models does, on probe inputs, before using it).
package bertfuse

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ErrUnsupported is wrapped by every error saying that a model cannot be
// fused (a weight, an input or a config field missing or of another shape):
// the caller should run the original graph.
var ErrUnsupported = errors.New("cannot fuse")

// Config is what Fuse needs from the model's config.json.
type Config struct {
	Hidden       int     `json:"hidden_size"`
	Heads        int     `json:"num_attention_heads"`
	Layers       int     `json:"num_hidden_layers"`
	Intermediate int     `json:"intermediate_size"`
	Eps          float64 `json:"layer_norm_eps"`
	Act          string  `json:"hidden_act"`
	ModelType    string  `json:"model_type"`
	PositionType string  `json:"position_embedding_type"`
}

// ReadConfig reads a Hugging Face config.json. Errors: the file cannot be
// read or parsed (wrapping the cause), or it describes a model Fuse does not
// handle (wrapping ErrUnsupported).
func ReadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseConfig is ReadConfig on the bytes of a config.json.
func ParseConfig(b []byte) (Config, error) {
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, err
	}
	if err := c.check(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func (c Config) check() error {
	switch {
	case c.ModelType != "" && c.ModelType != "bert":
		return fmt.Errorf("%w: model_type %q is not bert", ErrUnsupported, c.ModelType)
	case c.Hidden <= 0 || c.Heads <= 0 || c.Hidden%c.Heads != 0:
		return fmt.Errorf("%w: hidden_size %d and num_attention_heads %d", ErrUnsupported, c.Hidden, c.Heads)
	case c.Layers <= 0 || c.Intermediate <= 0:
		return fmt.Errorf("%w: num_hidden_layers %d, intermediate_size %d", ErrUnsupported, c.Layers, c.Intermediate)
	case c.Eps <= 0:
		return fmt.Errorf("%w: layer_norm_eps %g", ErrUnsupported, c.Eps)
	case c.Act != "gelu":
		return fmt.Errorf("%w: hidden_act %q (only the erf GELU, \"gelu\")", ErrUnsupported, c.Act)
	case c.PositionType != "" && c.PositionType != "absolute":
		return fmt.Errorf("%w: position_embedding_type %q", ErrUnsupported, c.PositionType)
	}
	return nil
}
