package server

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
)

// TestModelsRoute: GET /v1/models lists the one model the server embeds
// with, as OpenAI clients expect, under the name POST /v1/embeddings takes;
// GET /v1/models/{model} answers it by any of its names and 404 for others.
func TestModelsRoute(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	id := e.emb.Identity()
	r := e.get("/v1/models")
	mustStatus(t, r, http.StatusOK)
	checkDoc(t, http.MethodGet, "/v1/models", r)
	var list ModelList
	r.json(t, &list)
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != id.Name || list.Data[0].Object != "model" ||
		list.Data[0].Created != testNow.Unix() || list.Data[0].OwnedBy != "lexsona" {
		t.Fatalf("models %+v, want one model %s", list, id.Name)
	}
	// The listed id is a model the embeddings route takes.
	mustStatus(t, e.post("/v1/embeddings", `{"input":"use rg","model":"`+list.Data[0].ID+`"}`), http.StatusOK)

	for _, tc := range []struct {
		name string
		want int
	}{
		{id.Name, 200}, {id.ID(), 200}, {e.emb.Backend(), 200}, {"gpt-4o", 404}, {"text-embedding-3-small", 404},
	} {
		path := "/v1/models/" + url.PathEscape(tc.name)
		r := e.get(path)
		mustStatus(t, r, tc.want)
		checkDoc(t, http.MethodGet, "/v1/models/{model}", r)
		if tc.want == 200 {
			var m Model
			r.json(t, &m)
			if m != list.Data[0] {
				t.Errorf("%s: %+v, want %+v", path, m, list.Data[0])
			}
		}
	}
	r = e.get("/v1/models?limit=1")
	mustStatus(t, r, http.StatusBadRequest)
	checkDoc(t, http.MethodGet, "/v1/models", r)
}
