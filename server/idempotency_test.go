package server

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
)

func withKey(key, body string) request {
	return request{method: http.MethodPost, path: "/v1/corrections", body: body, header: map[string]string{IdempotencyHeader: key}}
}

func (e *testEnv) evidence(id string) (reinforcements, counter int) {
	e.t.Helper()
	v, err := e.srv.mem.GetRule(e.t.Context(), id, testNow)
	if err != nil {
		e.t.Fatal(err)
	}
	return v.Reinforcements, v.CounterExamples
}

func TestIdempotentReplay(t *testing.T) {
	e := newTestEnv(t, nil)
	body := `{"text":"` + textAuto + `","scope":{"project":"api"}}`
	first := e.do(withKey("k-1", body))
	mustStatus(t, first, http.StatusCreated)
	checkDoc(t, "POST", "/v1/corrections", first)
	again := e.do(withKey("k-1", body))
	mustStatus(t, again, http.StatusOK)
	checkDoc(t, "POST", "/v1/corrections", again)
	if !bytes.Equal(first.body, again.body) {
		t.Errorf("replay differs:\n%s\n%s", first.body, again.body)
	}
	if again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("no Idempotent-Replayed header")
	}
	if n, _ := e.evidence(ruleSed); n != 1 {
		t.Errorf("%d reinforcements after a replay, want 1", n)
	}

	// The key reused for another request: 409, nothing written.
	conflict := e.do(withKey("k-1", `{"text":"`+textAuto+`","scope":{"project":"web"}}`))
	mustStatus(t, conflict, http.StatusConflict)
	checkDoc(t, "POST", "/v1/corrections", conflict)
	if eb := conflict.errorBody(t); eb.Code != "conflict" {
		t.Errorf("code %q", eb.Code)
	}
	if n, _ := e.evidence(ruleSed); n != 1 {
		t.Errorf("%d reinforcements after a conflict, want 1", n)
	}
	var h History
	e.get("/v1/rules/"+ruleSed+"/history").json(t, &h)
	if len(h.Events) != 2 {
		t.Errorf("%d events, want creation + 1", len(h.Events))
	}

	// Without a key the same body records again.
	mustStatus(t, e.post("/v1/corrections", body), http.StatusCreated)
	if n, _ := e.evidence(ruleSed); n != 2 {
		t.Errorf("%d reinforcements, want 2", n)
	}
}

func TestIdempotentConfirmBand(t *testing.T) {
	e := newTestEnv(t, nil)
	body := `{"text":"` + textConfirm + `"}`
	a := e.do(withKey("k-confirm", body))
	b := e.do(withKey("k-confirm", body))
	mustStatus(t, a, 201)
	mustStatus(t, b, 200)
	var l ConfirmationList
	e.get("/v1/confirmations").json(t, &l)
	if len(l.Confirmations) != 1 {
		t.Errorf("%d pending confirmations after a replay, want 1", len(l.Confirmations))
	}
}

func TestIdempotentConcurrentRetries(t *testing.T) {
	e := newTestEnv(t, nil)
	body := `{"text":"` + textAuto + `"}`
	const n = 16
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { statuses[i] = e.do(withKey("k-race", body)).status })
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case 201:
			created++
		case 200:
		default:
			t.Errorf("status %d", s)
		}
	}
	if created != 1 {
		t.Errorf("%d requests recorded, want exactly 1 (statuses %v)", created, statuses)
	}
	if r, _ := e.evidence(ruleSed); r != 1 {
		t.Errorf("%d reinforcements, want 1", r)
	}
}
