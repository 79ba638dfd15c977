package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/server/servertest"
)

func TestParseAPIKeys(t *testing.T) {
	const r1, w1, w2 = "read-0123456789abcdef", "write-0123456789abcdef", "bare-0123456789abcdef"
	for _, c := range []struct {
		in      string
		want    APIKeys
		wantErr string
	}{
		{in: ""},
		{in: "   "},
		{in: "read:" + r1 + ",write:" + w1, want: APIKeys{Read: []string{r1}, Write: []string{w1}}},
		{in: " read:" + r1 + " , , WRITE:" + w1 + ",", want: APIKeys{Read: []string{r1}, Write: []string{w1}}},
		{in: w2, want: APIKeys{Write: []string{w2}}},
		{in: "read:" + r1 + ",read:" + w2, want: APIKeys{Read: []string{r1, w2}}},
		{in: "admin:" + w1, wantErr: `entry 1: unknown kind "admin"`},
		{in: "read:short", wantErr: "entry 1: the key is 5 characters long: at least 16"},
		{in: "read:" + r1 + ",write:has space 0123456789", wantErr: "entry 2: the key has a character"},
		{in: "write:" + w1 + "é", wantErr: "entry 1: the key has a character"},
	} {
		got, err := ParseAPIKeys(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseAPIKeys(%q) error %v, want %q", c.in, err, c.wantErr)
			}
			if err != nil && (strings.Contains(err.Error(), "short") || strings.Contains(err.Error(), "has space")) {
				t.Errorf("the error shows the key: %v", err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseAPIKeys(%q): %v", c.in, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("ParseAPIKeys(%q) (-want +got):\n%s", c.in, d)
		}
	}
}

const (
	readKey  = "r-0123456789abcdef0123"
	writeKey = "w-0123456789abcdef0123"
)

// concreteRequest makes a request for a route pattern: ids filled in and a
// plausible body, so that authorised calls reach their handler.
func concreteRequest(method, pattern string) request {
	p := strings.Replace(pattern, "/v1/rules/:id", "/v1/rules/"+ruleSed, 1)
	p = strings.Replace(p, ":id", "1", 1)
	r := request{method: method, path: p}
	switch pattern {
	case "/v1/classify":
		r.body = `{"text":"` + textAuto + `"}`
	case "/v1/corrections":
		r.body = `{"text":"` + textAuto + `"}`
	case "/v1/confirmations/:id":
		r.body = `{"action":"reject"}`
	case "/v1/rules/:id":
		if method == http.MethodPatch {
			r.body = `{"severity":"must"}`
		}
	case "/v1/registry/sync":
		r.body = "version: 1\nrules: []\n"
		r.header = map[string]string{"Content-Type": "application/yaml"}
	case "/v1/embeddings":
		r.body = `{"input":"hello there"}`
	}
	return r
}

func withAuth(r request, value string) request {
	h := map[string]string{"Authorization": value}
	for k, v := range r.header {
		h[k] = v
	}
	r.header = h
	return r
}

// TestAuthEveryRoute: every /v1 route refuses a request without a valid
// key (401) and a write with a read key (403), before it reaches the
// memory; the others are open. The memory is a fake: this is the front
// end's own check.
func TestAuthEveryRoute(t *testing.T) {
	mem := &servertest.Memory{}
	e, _ := newFakeEnv(t, func(c *Config) {
		c.APIKeys = APIKeys{Read: []string{readKey}, Write: []string{writeKey}}
	}, mem, nil)
	var routes []string
	for r := range e.srv.routes {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	v1 := 0
	for _, rt := range routes {
		method, pattern, _ := strings.Cut(rt, " ")
		req := concreteRequest(method, pattern)
		if !strings.HasPrefix(pattern, "/v1/") {
			t.Run(rt+"/open", func(t *testing.T) {
				if r := e.do(req); r.status == 401 || r.status == 403 {
					t.Errorf("%s needs a key: %d %s", rt, r.status, r.body)
				}
			})
			continue
		}
		v1++
		write := needsWrite(method, pattern)
		for _, c := range []struct {
			name, auth string
			want       int // 0: anything but 401 and 403
		}{
			{"missing", "", 401},
			{"wrong", "Bearer w-0123456789abcdef0124", 401},
			{"wrong scheme", "Basic " + writeKey, 401},
			{"empty bearer", "Bearer ", 401},
			{"prefix of a key", "Bearer " + writeKey[:10], 401},
			{"read", "Bearer " + readKey, map[bool]int{true: 403, false: 0}[write]},
			{"write", "Bearer " + writeKey, 0},
			{"write, lower-case scheme", "bearer " + writeKey, 0},
		} {
			t.Run(rt+"/"+c.name, func(t *testing.T) {
				before := len(mem.Called())
				r := e.do(withAuth(req, c.auth))
				if c.want != 0 && len(mem.Called()) != before {
					t.Errorf("a refused request reached the memory: %v", mem.Called()[before:])
				}
				switch {
				case c.want == 0 && (r.status == 401 || r.status == 403):
					t.Fatalf("status %d: %s", r.status, r.body)
				case c.want != 0 && r.status != c.want:
					t.Fatalf("status %d, want %d: %s", r.status, c.want, r.body)
				}
				if c.want == 401 {
					eb := r.errorBody(t)
					if eb.Code != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
						t.Errorf("401 answer: %s, WWW-Authenticate %q", r.body, r.header.Get("WWW-Authenticate"))
					}
					checkDoc(t, method, echoToOpenAPI(pattern), r)
				}
				if c.want == 403 {
					if eb := r.errorBody(t); eb.Code != "forbidden" {
						t.Errorf("403 answer: %s", r.body)
					}
					checkDoc(t, method, echoToOpenAPI(pattern), r)
				}
			})
		}
	}
	if v1 < 12 {
		t.Errorf("only %d /v1 routes checked", v1)
	}
	// Unknown /v1 paths are refused before anything else too.
	if r := e.get("/v1/does-not-exist"); r.status != 401 {
		t.Errorf("unknown /v1 path without a key: %d", r.status)
	}
}

func TestMetricsKey(t *testing.T) {
	keys := APIKeys{Read: []string{readKey}}
	open, _ := newFakeEnv(t, func(c *Config) { c.APIKeys = keys }, &servertest.Memory{}, nil)
	mustStatus(t, open.get("/metrics"), 200)
	closed, _ := newFakeEnv(t, func(c *Config) { c.APIKeys = keys; c.MetricsNeedKey = true }, &servertest.Memory{}, nil)
	mustStatus(t, closed.get("/metrics"), 401)
	mustStatus(t, closed.do(withAuth(get("/metrics"), "Bearer "+readKey)), 200)
	mustStatus(t, closed.get("/healthz"), 200)
	mustStatus(t, closed.get("/readyz"), 200)
}

func TestKeyringLevels(t *testing.T) {
	kr := newKeyring(APIKeys{Read: []string{readKey}, Write: []string{writeKey}})
	for tok, want := range map[string]int{readKey: accessRead, writeKey: accessWrite, "": accessNone, readKey + "x": accessNone} {
		if got, _ := kr.level(tok); got != want {
			t.Errorf("level(%q) = %d, want %d", tok, got, want)
		}
	}
	for _, c := range []struct {
		method, path string
		write        bool
	}{
		{"GET", "/v1/rules", false}, {"POST", "/v1/classify", false}, {"POST", "/v1/embeddings", false},
		{"POST", "/v1/corrections", true}, {"PATCH", "/v1/rules/:id", true}, {"DELETE", "/v1/rules/:id", true},
		{"POST", "/v1/registry/sync", true}, {"POST", "/v1/confirmations/:id", true}, {"HEAD", "/v1/rules", false},
	} {
		if got := needsWrite(c.method, c.path); got != c.write {
			t.Errorf("needsWrite(%s %s) = %v", c.method, c.path, got)
		}
	}
}
