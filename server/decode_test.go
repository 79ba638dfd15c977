package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// TestChunkedBodyOverLimit: a body without Content-Length is cut at the
// limit while it is read, and answered 413.
func TestChunkedBodyOverLimit(t *testing.T) {
	mem := &servertest.Memory{}
	e, _ := newFakeEnv(t, func(c *Config) { c.BodyLimit = 1024 }, mem, nil)
	for _, path := range []string{"/v1/classify", "/v1/corrections", "/v1/embeddings"} {
		body := io.MultiReader(strings.NewReader(`{"text":"`), strings.NewReader(strings.Repeat("a", 4096)), strings.NewReader(`"}`))
		req := httptest.NewRequest(http.MethodPost, path, body)
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		r := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
		mustStatus(t, r, 413)
		if eb := r.errorBody(t); eb.Code != "too_large" || !strings.Contains(eb.Message, "1024-byte limit") {
			t.Errorf("%s: %+v", path, eb)
		}
	}
	if len(mem.Called()) != 0 {
		t.Errorf("bodies over the limit reached the memory: %v", mem.Called())
	}
}

// FuzzRequestDecoders: arbitrary bodies never panic the decoders, and every
// refusal is an invalid or too_large error.
func FuzzRequestDecoders(f *testing.F) {
	for _, seed := range []string{
		`{"text":"stop using sed","scope":{"project":"api"}}`, `{"text":"x","polarity":-1,"at":"2026-01-01T00:00:00Z"}`,
		`{"input":["a","b"],"model":"m","encoding_format":"base64"}`, `{"input":"a"}`, `{"input":[1,2]}`,
		`{"action":"accept","rule_id":"tool.x"}`, `{"severity":"must","scope":{"context_tags":["a","B "]}}`,
		``, `null`, `[]`, `{`, `{"text":"\ud800"}`, "{\"text\":\"\xff\"}", `{"text":1e999}`, `{} {}`, `{"a":1}`,
	} {
		f.Add([]byte(seed))
	}
	s := &Server{validator: newValidator()}
	f.Fuzz(func(t *testing.T, body []byte) {
		targets := []any{&ClassifyRequest{}, &CorrectionRequest{}, &ConfirmRequest{}, &RulePatch{}, &EmbeddingsRequest{}}
		for i, v := range targets {
			err := s.decodeBytes(body, v, i == len(targets)-1)
			if err == nil {
				continue
			}
			if c := engine.ErrorCode(err); c != engine.EINVALID && c != engine.ETOOLARGE {
				t.Fatalf("%T: error code %s: %v", v, c, err)
			}
		}
		var er EmbeddingsRequest
		if s.decodeBytes(body, &er, true) == nil {
			if _, err := embeddingInputs(er.Input); err != nil {
				if c := engine.ErrorCode(err); c != engine.EINVALID && c != engine.ETOOLARGE {
					t.Fatalf("embeddingInputs: %v", err)
				}
			}
		}
		var cr CorrectionRequest
		if s.decodeBytes(body, &cr, false) == nil {
			c, err := correction(cr, "")
			if err != nil && engine.ErrorCode(err) != engine.EINVALID {
				t.Fatalf("correction: %v", err)
			}
			if err == nil {
				if _, err := memory.NormalizeCorrection(c, testNow); err != nil && engine.ErrorCode(err) != engine.EINVALID && engine.ErrorCode(err) != engine.ETOOLARGE {
					t.Fatalf("NormalizeCorrection: %v", err)
				}
			}
		}
	})
}
