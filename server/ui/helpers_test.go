package ui_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Keys of the servers with API keys.
const (
	readKey  = "r-0123456789abcdef0123"
	writeKey = "w-0123456789abcdef0123"
)

// testNow is the servers' clock.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// env is a review page served over HTTP: the whole server over a real
// memory (newEnv), or the page alone over a fake one (newPage).
type env struct {
	t   *testing.T
	url string
	ts  *httptest.Server
}

// browser is a client with a cookie jar that does not follow redirects,
// sending what a same-origin browser sends.
type browser struct {
	e      *env
	c      *http.Client
	origin string
}

func (e *env) browser(client *http.Client) *browser {
	jar, _ := cookiejar.New(nil)
	c := *client
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &browser{e: e, c: &c, origin: e.url}
}

// page is one response, its body read.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(req *http.Request) page {
	b.e.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return page{res.StatusCode, res.Header, string(body)}
}

func (b *browser) get(path string) page {
	req, _ := http.NewRequest(http.MethodGet, b.e.url+path, nil)
	return b.do(req)
}

// post sends a form the way a same-origin page does.
func (b *browser) post(path string, form url.Values) page {
	req, _ := http.NewRequest(http.MethodPost, b.e.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.origin)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// api calls the JSON API with a bearer key ("" for none).
func (b *browser) api(method, path, key, body string, out any) int {
	b.e.t.Helper()
	req, _ := http.NewRequest(method, b.e.url+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			b.e.t.Fatalf("decoding %s: %v", data, err)
		}
	}
	return res.StatusCode
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the first form token of a page.
func csrf(t *testing.T, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no csrf field in the page (status %d): %.400s", p.status, p.body)
	}
	return m[1]
}

// login logs b in with key and returns the landing page.
func (b *browser) login(t *testing.T, key string) page {
	t.Helper()
	lp := b.get("/login")
	res := b.post("/login", url.Values{"csrf": {csrf(t, lp)}, "key": {key}, "next": {"/"}})
	if res.status != http.StatusSeeOther {
		t.Fatalf("login: status %d: %.400s", res.status, res.body)
	}
	return b.get("/")
}
