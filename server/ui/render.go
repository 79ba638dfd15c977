package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/lexsona/lexsona/engine"
)

// pageNames are the templates of templates/, each rendered inside layout.html.
var pageNames = []string{"inbox", "rules", "rule", "persona", "registry", "learned", "login", "error"}

// funcs are the template helpers: formatting only.
var funcs = template.FuncMap{
	"conf": func(c float64) string { return fmt.Sprintf("%.*f", engine.ConfidenceDecimals, c) },
	"pct":  func(c float64) string { return fmt.Sprintf("%.0f%%", c*100) },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"iso":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"scope": func(s engine.Scope) string { return s.String() },
	"join":  strings.Join,
	"needed": func(n int) string {
		switch {
		case n == engine.NeededNever:
			return "not by corrections"
		case n == 0:
			return "active"
		case n == 1:
			return "1 more correction"
		}
		return fmt.Sprintf("%d more corrections", n)
	},
	"count": func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	},
	"score": func(f float64) string { return fmt.Sprintf("%.3f", f) },
	"scorep": func(f *float64) string {
		if f == nil {
			return ""
		}
		return fmt.Sprintf("%.3f", *f)
	},
	"num": func(f float64) string { return fmt.Sprintf("%g", f) },
	"add": func(a, b float64) float64 { return a + b },
	"sub": func(a, b float64) float64 { return a - b },
}

// templates holds one template set per page: layout.html and the page,
// parsed at the first page rendered (a process that serves no page, such as
// a hook, never parses them).
var templates = sync.OnceValue(func() map[string]*template.Template {
	out := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		out[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS,
			"templates/layout.html", "templates/"+name+".html"))
	}
	return out
})

// view is what the layout renders around a page.
type view struct {
	Title      string
	Nav        string // the nav entry to mark current
	CSRF       string
	CanWrite   bool
	Keyed      bool // API keys are configured: show the session and log out
	Level      string
	Tenant     string // the session's tenant, shown when keys name tenants
	InboxCount int
	Page       any
}

// titled is implemented by page data that names its title and nav entry.
type titled interface{ title() (title, nav string) }

func (p *errorPage) title() (string, string) { return p.StatusText, "" }

// render writes page name with data at status, inside the layout.
func (u *UI) render(rc *reqCtx, status int, name string, data titled) {
	t, nav := data.title()
	v := view{Title: t, Nav: nav, CSRF: rc.csrf, CanWrite: rc.canWrite, Keyed: !u.keys.empty(),
		Level: rc.sess.level.String(), Page: data}
	if u.keys.named() {
		v.Tenant = rc.sess.tenant
	}
	if rc.csrf != "" {
		v.InboxCount = u.inboxCount(rc)
		if v.InboxCount > 0 {
			v.Title = fmt.Sprintf("(%d) %s", v.InboxCount, v.Title)
		}
	}
	var buf bytes.Buffer
	if err := templates()[name].Execute(&buf, v); err != nil {
		u.log.Error("review page: template", "page", name, "err", err.Error())
		http.Error(rc.w, "internal error", http.StatusInternalServerError)
		return
	}
	rc.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	rc.w.WriteHeader(status)
	_, _ = rc.w.Write(buf.Bytes())
}

// inboxCount is the number of items waiting in the session's inbox (0 when
// it cannot be read: the page itself reports that error).
func (u *UI) inboxCount(rc *reqCtx) int {
	if rc.mem == nil {
		return 0
	}
	in, err := loadInbox(rc.ctx(), rc.mem)
	if err != nil {
		return 0
	}
	return len(in.Pending) + len(in.Candidates) + len(in.Exceptions)
}

// assetTypes are the content types of the embedded assets.
var assetTypes = map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}

// asset serves an embedded stylesheet or script.
func (u *UI) asset(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	name := r.PathValue("name")
	ct, ok := assetTypes[path.Ext(name)]
	b, err := fs.ReadFile(assetFS, "assets/"+name)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}
