package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestUnparsableQueryRefused: a query string Go's parser would partly drop
// is answered 400 naming the problem, on routes that read parameters and on
// those that do not, instead of being served as if the dropped parameters
// were absent.
func TestUnparsableQueryRefused(t *testing.T) {
	e := newTestEnv(t, nil)
	many := strings.Repeat("a=1&", 10000) + "a=1"
	for _, tc := range []struct {
		name, method, path string
		body               string
		want               int
		msg                string
	}{
		{"trailing semicolon", http.MethodGet, "/v1/persona?project=api;", "", 400, `";"`},
		{"semicolon separator", http.MethodGet, "/v1/persona?project=api;environment=work", "", 400, `";"`},
		{"semicolon in a later pair", http.MethodGet, "/v1/rules?limit=5&status=active;x", "", 400, `";"`},
		{"bad escape", http.MethodGet, "/v1/persona?project=%zz", "", 400, "malformed escape"},
		{"too many parameters", http.MethodGet, "/v1/rules?" + many, "", 400, "10001 parameters"},
		{"route without parameters", http.MethodPost, "/v1/classify?x;y", `{"text":"use rg"}`, 400, `";"`},
		{"escaped semicolon is a value", http.MethodGet, "/v1/rules?category=a%3Bb", "", 400, "category"},
		{"plain query", http.MethodGet, "/v1/persona?project=api", "", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(request{method: tc.method, path: tc.path, body: tc.body})
			mustStatus(t, r, tc.want)
			if tc.want == 400 {
				if d := r.errorBody(t); d.Code != "invalid" || !strings.Contains(d.Message, tc.msg) {
					t.Errorf("error %+v, want code invalid and a message with %s", d, tc.msg)
				}
			}
		})
	}
}
