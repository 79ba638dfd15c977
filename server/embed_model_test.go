package server

import (
	"net/http"
	"testing"
)

// TestEmbeddingsReportModelIdentity: /v1/embeddings names the model by the
// identity its vectors belong to — the one /v1/classify reports, which
// changes when the lexical model is rebuilt by a sync — not by its family
// name; that identity is accepted back as the request's model.
func TestEmbeddingsReportModelIdentity(t *testing.T) {
	e := newTestEnv(t, nil)
	want := e.emb.Identity().ID()
	if want == e.emb.Identity().Name {
		t.Fatalf("bad fixture: the identity %q is the bare name", want)
	}
	var emb struct{ Model string }
	r := e.post("/v1/embeddings", `{"input":"stop using sed"}`)
	if r.status != http.StatusOK {
		t.Fatalf("embeddings: %d %s", r.status, r.body)
	}
	r.json(t, &emb)
	var cls struct{ Model string }
	r = e.post("/v1/classify", `{"text":"stop using sed"}`)
	if r.status != http.StatusOK {
		t.Fatalf("classify: %d %s", r.status, r.body)
	}
	r.json(t, &cls)
	if emb.Model != want || cls.Model != want {
		t.Errorf("embeddings model %q, classify model %q, want both %q", emb.Model, cls.Model, want)
	}
	if r := e.post("/v1/embeddings", `{"input":"x y","model":"`+want+`"}`); r.status != http.StatusOK {
		t.Errorf("the reported model %q is refused: %d %s", want, r.status, r.body)
	}
}
