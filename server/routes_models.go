package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/models"
)

// Model is one model of GET /v1/models, as OpenAI lists them: ID is the
// name POST /v1/embeddings takes as "model" (the embedder's model name, e.g.
// all-MiniLM-L6-v2); Created is when the server started (Unix seconds).
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// ModelList is the OpenAI-compatible answer of GET /v1/models.
type ModelList struct {
	Object string  `json:"object"`
	Data   []Model `json:"data"`
}

// servedModel is the model emb, a tenant's memory's embedder, embeds with.
func (s *Server) servedModel(emb models.Embedder) Model {
	return Model{ID: emb.Identity().Name, Object: "model", Created: s.started.Unix(), OwnedBy: "lexsona"}
}

// GET /v1/models: the one model this server embeds with, so that OpenAI
// clients that list the models before embedding find it.
func (s *Server) handleListModels(c echo.Context) error {
	if err := newQuery(c.QueryParams()).done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ModelList{Object: "list", Data: []Model{s.servedModel(mem.Embedder())}})
}

// GET /v1/models/:model: the served model under any name POST
// /v1/embeddings takes for it (its name, its identity name@hash, or the
// backend); any other is ENOTFOUND (404).
func (s *Server) handleGetModel(c echo.Context) error {
	if err := newQuery(c.QueryParams()).done(); err != nil {
		return err
	}
	mem, err := s.memOf(c)
	if err != nil {
		return err
	}
	emb := mem.Embedder()
	id, name := emb.Identity(), c.Param("model")
	switch name {
	case id.Name, id.ID(), emb.Backend():
		return c.JSON(http.StatusOK, s.servedModel(emb))
	}
	return engine.Errorf(engine.ENOTFOUND, "model %q is not served here: this server embeds with %s", clip(name), id.Name)
}
