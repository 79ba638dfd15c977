package server

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/memory"
	"github.com/lexsona/lexsona/server/servertest"
)

// TestBrowserRequestsRefused: what a browser page on another site can send
// (a cross-origin fetch, a form's content type) is refused before it
// reaches the memory; a same-origin request is recorded.
func TestBrowserRequestsRefused(t *testing.T) {
	recorded := 0
	mem := &servertest.Memory{RecordFn: func(context.Context, engine.Correction) (memory.RecordResponse, bool, error) {
		recorded++
		return memory.RecordResponse{Decision: "confirm", Score: 0.5, Polarity: engine.Reinforce, PendingID: 1,
			Candidates: []engine.Candidate{{RuleID: ruleSed, Score: 0.5}}}, false, nil
	}}
	e, _ := newFakeEnv(t, nil, mem, nil)
	body := `{"text":"` + textAuto + `"}`
	with := func(h map[string]string) request {
		return request{method: http.MethodPost, path: "/v1/corrections", body: body, header: h}
	}
	runCases(t, e, []routeCase{
		{"foreign origin", with(map[string]string{"Origin": "https://evil.example"}), "/v1/corrections", 403, "forbidden", "cross-origin", nil},
		{"null origin", with(map[string]string{"Origin": "null"}), "/v1/corrections", 403, "forbidden", "cross-origin", nil},
		{"cross-site fetch", with(map[string]string{"Sec-Fetch-Site": "cross-site"}), "/v1/corrections", 403, "forbidden", "cross-site", nil},
		{"no content type", with(map[string]string{"Content-Type": ""}), "/v1/corrections", 400, "invalid", "Content-Type header is missing", nil},
		{"text/plain", with(map[string]string{"Content-Type": "text/plain;charset=UTF-8"}), "/v1/corrections", 400, "invalid", "Content-Type", nil},
		{"form", with(map[string]string{"Content-Type": "application/x-www-form-urlencoded"}), "/v1/corrections", 400, "invalid", "Content-Type", nil},
		{"registry as text/plain", request{method: http.MethodPost, path: "/v1/registry/sync", body: "version: 1\nrules: []\n",
			header: map[string]string{"Content-Type": "text/plain"}}, "/v1/registry/sync", 400, "invalid", "Content-Type", nil},
		// httptest requests have Host example.com: a same-origin page is fine.
		{"same origin", with(map[string]string{"Origin": "http://example.com", "Sec-Fetch-Site": "same-origin"}), "/v1/corrections", 201, "", "", nil},
	})
	if recorded != 1 {
		t.Errorf("%d corrections recorded, want only the same-origin one", recorded)
	}
}

func TestHostCheckOnLoopback(t *testing.T) {
	_, base := startFake(t, func(c *Config) { c.AllowedHosts = []string{"LexSona.Internal:8080"} }, &servertest.Memory{})
	port := base[strings.LastIndex(base, ":")+1:]
	for host, want := range map[string]int{
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "[::1]:" + port: 200, "lexsona.internal:" + port: 200,
		"evil.example:" + port: 403, "127.0.0.1.nip.io:" + port: 403, "attacker.localhost.evil.example": 403,
	} {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/rules?limit=1", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
}

func TestParseAllowedHosts(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string // the set, sorted; nil when an error is wanted
		err  string
	}{
		{in: nil, want: []string{}},
		{in: []string{"LexSona.Internal:8080", " proxy.example. ", "10.0.0.5", "[::1]:80"}, want: []string{"10.0.0.5", "::1", "lexsona.internal", "proxy.example."}},
		{in: []string{"ok.example", "bad/host"}, err: `allowed host "bad/host" is not a host name`},
		{in: []string{""}, err: `allowed host "" is not a host name`},
		{in: []string{"a b"}, err: `allowed host "a b"`},
		{in: []string{"-leading.example"}, err: `allowed host "-leading.example"`},
	} {
		set, err := ParseAllowedHosts(tc.in)
		if tc.err != "" {
			if engine.ErrorCode(err) != engine.EINVALID || !strings.Contains(engine.ErrorMessage(err), tc.err) {
				t.Errorf("%q: got %v, want invalid %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		got := slices.Sorted(maps.Keys(set))
		if got == nil {
			got = []string{}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", tc.in, diff)
		}
	}
}
