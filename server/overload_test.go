package server

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// gatedEmbedder wraps a real embedder (same identity, so the classifier's
// stored vectors stay valid) and holds every call until released.
type gatedEmbedder struct {
	models.Embedder
	entered chan struct{}
	gate    chan struct{}
}

func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	g.entered <- struct{}{}
	<-g.gate
	return g.Embedder.Embed(ctx, texts)
}

// TestOverloadedHTTP: a full embedding queue answers 429 with Retry-After.
func TestOverloadedHTTP(t *testing.T) {
	var g *gatedEmbedder
	e := newTestEnv(t, func(c *Config) {
		g = &gatedEmbedder{Embedder: c.Embedder, entered: make(chan struct{}, 8), gate: make(chan struct{})}
		c.Embedder, c.MaxBatch, c.MaxWait, c.QueueSize, c.BatchWorkers = g, 1, -1, 1, 1
	})
	var wg sync.WaitGroup
	statuses := make(chan int, 2)
	wg.Go(func() { statuses <- e.post("/v1/embeddings", `{"input":"first"}`).status })
	<-g.entered
	wg.Go(func() { statuses <- e.post("/v1/classify", `{"text":"`+textAuto+`"}`).status })
	for e.srv.batcher.QueueLen() < 1 {
		time.Sleep(time.Millisecond)
	}
	for _, path := range []string{"/v1/embeddings", "/v1/classify", "/v1/corrections"} {
		body := `{"input":"third"}`
		if path != "/v1/embeddings" {
			body = `{"text":"` + textAuto + `"}`
		}
		r := e.post(path, body)
		mustStatus(t, r, http.StatusTooManyRequests)
		if r.header.Get("Retry-After") == "" {
			t.Errorf("%s: 429 without Retry-After", path)
		}
		if eb := r.errorBody(t); eb.Code != engine.EOVERLOADED {
			t.Errorf("%s: code %q", path, eb.Code)
		}
		checkDoc(t, "POST", path, r)
	}
	close(g.gate)
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Errorf("a queued request ended with %d", s)
		}
	}
	if r, _ := e.evidence(ruleSed); r != 0 {
		t.Errorf("an overloaded correction was recorded")
	}
}
