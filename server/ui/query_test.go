package ui_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/server/servertest"
)

// TestPageQueryIsChecked: the pages check their query strings as the API
// does: a pair Go's parser would drop (a ";", a bad escape), a parameter the
// page does not read (a typo) and one given twice are a 400 page naming it,
// so a persona preview never widens to the global scope on ?project=web;
// or ?projct=web. Queries the page's own forms send are served.
func TestPageQueryIsChecked(t *testing.T) {
	b := newPage(t, &servertest.Memory{}, nil, false).browser(http.DefaultClient)
	for _, tc := range []struct {
		path string
		want int
		msg  string
	}{
		{"/persona?project=web;", 400, `query parameter &#34;project=web;&#34; contains &#34;;&#34;`},
		{"/persona?project=web;environment=work", 400, `contains &#34;;&#34;`},
		{"/persona?projct=web", 400, `unknown query parameter &#34;projct&#34;`},
		{"/persona?project=web&project=api", 400, `query parameter &#34;project&#34; is given 2 times`},
		{"/persona?project=%zz", 400, "malformed escape"},
		{"/persona?exclude_tags=vendored", 400, `unknown query parameter &#34;exclude_tags&#34;`},
		{"/rules?colour=red", 400, `unknown query parameter &#34;colour&#34;`},
		{"/rules?state=active;", 400, `contains &#34;;&#34;`},
		{"/rules/no-such-rule?dne=x", 400, `unknown query parameter &#34;dne&#34;`},
		{"/?done=accepted&x=1", 400, `unknown query parameter &#34;x&#34;`},
		{"/registry?name=team", 400, `unknown query parameter &#34;name&#34;: this endpoint reads no query parameters`},
		{"/persona?project=web", 200, ""},
		{"/persona?environment=&project=&agent_family=&context_tags=", 200, ""},
		{"/rules?q=&category=&severity=&state=&environment=&project=&agent_family=&context_tags=", 200, ""},
		{"/?done=accepted", 200, ""},
		{"/registry", 200, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p := b.get(tc.path)
			if p.status != tc.want {
				t.Fatalf("status %d, want %d: %.300s", p.status, tc.want, p.body)
			}
			if tc.want == 400 && !strings.Contains(p.body, tc.msg) {
				t.Errorf("the error page does not say %s: %.2000s", tc.msg, p.body)
			}
			if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("Content-Type %q, want an HTML page", ct)
			}
		})
	}
}
