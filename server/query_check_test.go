package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// TestUnparsableQueryRefused: a query string Go's parser would partly drop
// is answered 400 naming the problem, on routes that read parameters and on
// those that do not, instead of being served as if the dropped parameters
// were absent.
func TestUnparsableQueryRefused(t *testing.T) {
	var category string
	e, _ := newFakeEnv(t, nil, &servertest.Memory{ListRulesFn: func(_ context.Context, q memory.RulesQuery) (memory.RuleList, error) {
		category = q.Category
		return memory.RuleList{}, nil
	}}, nil)
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
		{"escaped semicolon is a value", http.MethodGet, "/v1/rules?category=a%3Bb", "", 200, ""},
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
	if category != "a;b" {
		t.Errorf("the escaped semicolon reached ListRules as category %q, want \"a;b\"", category)
	}
}

// TestEmptyTypedQueryValuesRefused: a number, time, boolean or choice given
// empty (now=, limit=) is a 400 naming it, as openapi.json has it, never
// read as absent; empty free-text values (scope fields, category) still
// read as absent.
func TestEmptyTypedQueryValuesRefused(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	for _, tc := range []struct {
		path  string
		param string // "" when it is served
	}{
		{"/v1/persona?now=", "now"},
		{"/v1/persona?max=", "max"},
		{"/v1/persona?include_dormant=", "include_dormant"},
		{"/v1/persona?format=%20", "format"},
		{"/v1/why?now=", "now"},
		{"/v1/rules?now=", "now"},
		{"/v1/rules?status=", "status"},
		{"/v1/rules?source=", "source"},
		{"/v1/rules?limit=", "limit"},
		{"/v1/rules/" + ruleSed + "?now=", "now"},
		{"/v1/rules/" + ruleSed + "/history?after=", "after"},
		{"/v1/confirmations?status=rejected&limit=", "limit"},
		{"/v1/confirmations?status=", "status"},
		{"/v1/persona?project=&environment=&agent_family=&context_tags=", ""},
		{"/v1/rules?category=&after=", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := e.get(tc.path)
			if tc.param == "" {
				mustStatus(t, r, http.StatusOK)
				return
			}
			mustStatus(t, r, http.StatusBadRequest)
			if d := r.errorBody(t); !strings.Contains(d.Message, "query parameter "+tc.param+" is empty") {
				t.Errorf("message %q does not name %s as empty", d.Message, tc.param)
			}
		})
	}
}

// TestQueryNowBeforeEpochRefused: now= a time before 1970 — the zero time
// 0001-01-01T00:00:00Z above all, which the use cases would read as "not
// given" and answer for the present — is a 400 naming now on every route
// that reads it; from 1970 on it is served.
func TestQueryNowBeforeEpochRefused(t *testing.T) {
	e, _ := newFakeEnv(t, nil, &servertest.Memory{}, nil)
	for _, route := range []string{"/v1/persona", "/v1/why", "/v1/rules", "/v1/rules/" + ruleSed} {
		for _, now := range []string{"0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "0001-01-01T01:00:00%2B01:00"} {
			t.Run(route+"?now="+now, func(t *testing.T) {
				r := e.get(route + "?now=" + now)
				mustStatus(t, r, http.StatusBadRequest)
				if d := r.errorBody(t); d.Code != "invalid" || !strings.Contains(d.Message, "query parameter now=") || !strings.Contains(d.Message, "before 1970") {
					t.Errorf("error %+v, want invalid naming now and 1970", d)
				}
			})
		}
	}
	for _, path := range []string{"/v1/persona?now=1970-01-01T00:00:00Z", "/v1/rules?now=2031-05-01T09:00:00%2B02:00", "/v1/rules/" + ruleSed + "?now=1970-01-01T00:00:00Z"} {
		mustStatus(t, e.get(path), http.StatusOK)
	}
}
