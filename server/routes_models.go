package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
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

// servedModel is the model tenant t embeds with.
func (s *Server) servedModel(t *tenantMem) Model {
	return Model{ID: t.emb.Identity().Name, Object: "model", Created: s.started.Unix(), OwnedBy: "lexsona"}
}

// GET /v1/models: the one model this server embeds with, so that OpenAI
// clients that list the models before embedding find it.
func (s *Server) handleListModels(c echo.Context) error {
	if err := newQuery(c.QueryParams()).done(); err != nil {
		return err
	}
	t, err := s.tenantOf(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ModelList{Object: "list", Data: []Model{s.servedModel(t)}})
}

// GET /v1/models/:model: the served model under any name POST
// /v1/embeddings takes for it (its name, its identity name@hash, or the
// backend); any other is ENOTFOUND (404).
func (s *Server) handleGetModel(c echo.Context) error {
	if err := newQuery(c.QueryParams()).done(); err != nil {
		return err
	}
	t, err := s.tenantOf(c)
	if err != nil {
		return err
	}
	id, name := t.emb.Identity(), c.Param("model")
	switch name {
	case id.Name, id.ID(), t.emb.Backend():
		return c.JSON(http.StatusOK, s.servedModel(t))
	}
	return engine.Errorf(engine.ENOTFOUND, "model %q is not served here: this server embeds with %s", clip(name), id.Name)
}
