package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// ClassifyRequest is the body of POST /v1/classify.
type ClassifyRequest struct {
	Text  string       `json:"text" validate:"required"`
	Scope engine.Scope `json:"scope"`
}

// classifyText classifies a correction without writing anything and counts
// the decision.
func (s *Server) classifyText(ctx context.Context, mem Corrections, text string, scope engine.Scope) (classifier.Result, error) {
	res, err := mem.Classify(ctx, text, scope)
	if err != nil {
		return res, err
	}
	s.metrics.decisions.WithLabelValues(res.Decision).Inc()
	return res, nil
}

func (s *Server) handleClassify(c echo.Context) error {
	var req ClassifyRequest
	if err := s.decodeJSON(c, &req, false); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	res, err := s.classifyText(c.Request().Context(), mem, req.Text, req.Scope)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// MaxEmbeddingInputs bounds the texts of one POST /v1/embeddings request.
const MaxEmbeddingInputs = 2048

// EmbeddingsRequest is the OpenAI-compatible body of POST /v1/embeddings.
// Input is a string or an array of strings; Model, when set, must name the
// served model; EncodingFormat is "float" (default) or "base64"; Dimensions,
// when set, must equal the model's. Other OpenAI fields (user) are ignored.
type EmbeddingsRequest struct {
	Input          json.RawMessage `json:"input"`
	Model          string          `json:"model"`
	EncodingFormat string          `json:"encoding_format" validate:"omitempty,oneof=float base64"`
	Dimensions     int             `json:"dimensions"`
	User           string          `json:"user"`
}

// EmbeddingsResponse is the OpenAI-compatible answer. Model is the
// embedder's identity (models.Identity.ID: name@hash, as /v1/classify
// reports it), which changes whenever the model does — for the lexical
// embedder, at every registry sync that changes its vocabulary.
type EmbeddingsResponse struct {
	Object string          `json:"object"`
	Data   []EmbeddingItem `json:"data"`
	Model  string          `json:"model"`
	Usage  EmbeddingUsage  `json:"usage"`
}

// EmbeddingItem is one input's vector: []float32, or a base64 string of
// little-endian float32s with encoding_format "base64".
type EmbeddingItem struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

// EmbeddingUsage counts tokens: the model's own ([CLS] and [SEP] included,
// after truncation at its maximum length) for the ort and go embedders; an
// estimate, about one per four bytes, for the lexical embedder, which has
// no model tokens.
type EmbeddingUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// embeddingInputs decodes "input": a string or an array of strings.
func embeddingInputs(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, engine.Errorf(engine.EINVALID, `field "input" is required: a string or an array of strings`)
	}
	var one string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, engine.Errorf(engine.EINVALID, `field "input" is not a valid JSON string`)
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil || raw[0] != '[' {
		return nil, engine.Errorf(engine.EINVALID, `field "input" must be a string or an array of strings (token arrays are not supported)`)
	}
	if len(many) == 0 {
		return nil, engine.Errorf(engine.EINVALID, `field "input" is an empty array: give at least one text`)
	}
	if len(many) > MaxEmbeddingInputs {
		return nil, engine.Errorf(engine.ETOOLARGE, `field "input" has %d texts: at most %d`, len(many), MaxEmbeddingInputs)
	}
	return many, nil
}

// validEmbeddingInput checks input text i: valid UTF-8 and not blank. An
// input is embedded and never stored or shown, so unlike stored text it may
// hold control characters (code with form feeds, say).
func validEmbeddingInput(i int, t string) error {
	if !utf8.ValidString(t) {
		return engine.Errorf(engine.EINVALID, "input text %d is not valid UTF-8", i)
	}
	if strings.TrimSpace(t) == "" {
		return engine.Errorf(engine.EINVALID, "input text %d is empty", i)
	}
	return nil
}

func (s *Server) handleEmbeddings(c echo.Context) error {
	var req EmbeddingsRequest
	if err := s.decodeJSON(c, &req, true); err != nil {
		return err
	}
	texts, err := embeddingInputs(req.Input)
	if err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	emb := mem.Embedder()
	id := emb.Identity()
	switch req.Model {
	case "", id.Name, id.ID(), emb.Backend():
	default:
		return engine.Errorf(engine.EINVALID, "model %q is not served here: this server embeds with %s", clip(req.Model), id.Name)
	}
	if req.Dimensions != 0 && req.Dimensions != id.Dims {
		return engine.Errorf(engine.EINVALID, "dimensions %d: the model %s has %d dimensions and cannot change them", req.Dimensions, id.Name, id.Dims)
	}
	for i, t := range texts {
		if err := validEmbeddingInput(i, t); err != nil {
			return err
		}
	}
	counts, tokens, err := countTokens(emb, texts)
	if err != nil {
		return err
	}
	vecs, err := emb.Embed(withTokenCount(c.Request().Context(), counts), texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(texts) {
		return engine.Errorf(engine.EINTERNAL, "embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	s.metrics.embedTexts.Add(float64(len(texts)))
	out := EmbeddingsResponse{Object: "list", Data: make([]EmbeddingItem, len(vecs)), Model: id.ID(),
		Usage: EmbeddingUsage{PromptTokens: tokens, TotalTokens: tokens}}
	for i, v := range vecs {
		var item any = v
		if req.EncodingFormat == "base64" {
			item = encodeBase64(v)
		}
		out.Data[i] = EmbeddingItem{Object: "embedding", Index: i, Embedding: item}
	}
	return c.JSON(http.StatusOK, out)
}

// encodeBase64 packs v as little-endian float32s in standard base64, as
// OpenAI's encoding_format "base64" does.
func encodeBase64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// countTokens is the usage of each text and of all (see EmbeddingUsage).
func countTokens(emb models.Embedder, texts []string) ([]int64, int, error) {
	counts := make([]int64, len(texts))
	if tc, ok := models.As[models.TokenCounter](emb); ok {
		c, err := tc.CountTokens(texts)
		if err != nil {
			return nil, 0, err
		}
		if len(c) != len(texts) {
			return nil, 0, engine.Errorf(engine.EINTERNAL, "the tokenizer counted %d texts of %d", len(c), len(texts))
		}
		for i, n := range c {
			counts[i] = int64(n)
		}
	} else {
		for i, t := range texts {
			counts[i] = int64(engine.EstimateTokens(t))
		}
	}
	total := 0
	for _, n := range counts {
		total += int(n)
	}
	return counts, total, nil
}
