package e2e

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	readKey  = "read-key-0123456789abcdef"
	writeKey = "write-key-0123456789abcdef"
)

// readPOSTs are the POST routes a read key may call. The OpenAPI document
// states it ("POST /v1/classify and /v1/embeddings are reads"), and the test
// checks that it still does.
var readPOSTs = []string{"/v1/classify", "/v1/embeddings"}

// route is one operation of the OpenAPI document, with a concrete path.
type route struct {
	method, path string
	write        bool
}

// MustRoutes reads GET /openapi.json and returns every /v1 operation, path
// parameters filled in (a rule id, a confirmation id), so that a route added
// to the API is covered here without editing the test.
func MustRoutes(t *testing.T, c *Client) []route {
	t.Helper()
	var doc struct {
		Info  struct{ Description string }          `json:"info"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	c.MustJSON(t, http.MethodGet, "/openapi.json", nil, http.StatusOK, &doc)
	if !strings.Contains(doc.Info.Description, "POST /v1/classify and /v1/embeddings are reads") {
		t.Fatalf("the OpenAPI description no longer says which POST routes are reads: update readPOSTs\n%s", doc.Info.Description)
	}
	fill := strings.NewReplacer("/rules/{id}", "/rules/"+catRule, "/confirmations/{id}", "/confirmations/1", "/events/{id}", "/events/1", "/models/{model}", "/models/all-MiniLM-L6-v2")
	var routes []route
	for p, ops := range doc.Paths {
		if !strings.HasPrefix(p, "/v1/") {
			continue
		}
		for m := range ops {
			m = strings.ToUpper(m)
			switch m {
			case "GET", "POST", "PUT", "PATCH", "DELETE":
			default:
				continue // "parameters" and the like
			}
			path := fill.Replace(p)
			if strings.ContainsAny(path, "{}") {
				t.Fatalf("the test does not know how to fill in %s: add it to MustRoutes", p)
			}
			routes = append(routes, route{m, path, m != "GET" && !(m == "POST" && slices.Contains(readPOSTs, p))})
		}
	}
	slices.SortFunc(routes, func(a, b route) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	return routes
}

// TestAuthEveryRoute serves the binary with a read and a write key and
// sends every /v1 operation of its OpenAPI document without a key, with a
// wrong key, with a malformed Authorization header, with the read key, and
// with the write key: 401 for the first three, 403 for the read key on a
// write route, and past authentication otherwise. Every request carries a
// body the handler refuses, so nothing may be written at all.
func TestAuthEveryRoute(t *testing.T) {
	bin := MustBuildBinary(t)
	dbPath := filepath.Join(t.TempDir(), "auth.db")
	p := MustStartServe(t, bin, dbPath, "--insecure-keys-on-command-line", "--api-keys", "read:"+readKey+",write:"+writeKey)
	if _, err := p.WaitReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c := NewClient(p.Base, 2)
	routes := MustRoutes(t, c)
	if len(routes) < 12 {
		t.Fatalf("only %d /v1 routes in /openapi.json: %v", len(routes), routes)
	}
	before := MustDigest(t, dbPath)
	writes := 0
	for _, r := range routes {
		if r.write {
			writes++
		}
	}
	for _, r := range append(routes, route{"GET", "/v1/no-such-route", false}, route{"POST", "/v1/no-such-route", true}) {
		for _, a := range []struct {
			name, auth string
			want       int
		}{
			{"no key", "", 401},
			{"wrong key", "Bearer wrong-key-0123456789abcdef", 401},
			{"write key in the wrong scheme", "Basic " + writeKey, 401},
			{"key without a scheme", writeKey, 401},
			{"read key", "Bearer " + readKey, map[bool]int{true: 403, false: 0}[r.write]},
			{"write key", "Bearer " + writeKey, 0},
		} {
			hdr := map[string]string{}
			if a.auth != "" {
				hdr["Authorization"] = a.auth
			}
			res, err := c.Do(r.method, r.path, "application/json", []byte(`{}`), hdr)
			if err != nil {
				t.Fatalf("%s %s: %v", r.method, r.path, err)
			}
			var eb ErrorBody
			json.Unmarshal(res.Body, &eb)
			switch {
			case a.want != 0 && res.Status != a.want:
				t.Errorf("%s %s with %s: status %d, want %d; body %s", r.method, r.path, a.name, res.Status, a.want, clipBody(res.Body))
			case a.want == 0 && (res.Status == 401 || res.Status == 403):
				t.Errorf("%s %s with %s: refused (%d %s)", r.method, r.path, a.name, res.Status, eb.Error.Message)
			case a.want == 0 && !strings.Contains(r.path, "no-such-route") &&
				(strings.Contains(eb.Error.Message, "no such endpoint") || res.Status == http.StatusMethodNotAllowed):
				t.Errorf("%s %s is in /openapi.json but not served: %d %s", r.method, r.path, res.Status, eb.Error.Message)
			case a.want == 401 && res.Header.Get("WWW-Authenticate") == "":
				t.Errorf("%s %s with %s: 401 without WWW-Authenticate", r.method, r.path, a.name)
			}
			if strings.Contains(string(res.Body), readKey) || strings.Contains(string(res.Body), writeKey) {
				t.Errorf("%s %s: the answer shows a key: %s", r.method, r.path, clipBody(res.Body))
			}
		}
	}
	for _, open := range []string{"/healthz", "/readyz", "/openapi.json", "/metrics"} {
		if r := c.MustDo(t, http.MethodGet, open, "", nil); r.Status != http.StatusOK {
			t.Errorf("GET %s without a key: %d, want 200 (it is not under /v1)", open, r.Status)
		}
	}
	if after := MustDigest(t, dbPath); after != before {
		t.Errorf("refused and invalid requests changed the database:\nbefore %+v\nafter  %+v", before, after)
	}
	if strings.Contains(p.Log(), readKey) || strings.Contains(p.Log(), writeKey) {
		t.Errorf("the server log shows an API key")
	}
	t.Logf("%d /v1 routes from /openapi.json (%d writes) × 6 credentials checked", len(routes), writes)
}
