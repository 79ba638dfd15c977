package redact

import (
	"regexp"
	"strings"
)

// webRules find the web secrets gitleaks misses or finds only in part:
//   - Discord webhook URLs (no gitleaks rule): the token after the
//     webhook's id;
//   - Slack webhook URLs whatever their path's length (gitleaks wants 43 to
//     56 characters): the path after /services/, /workflows/ or /triggers/
//     (both as the services hand them out, in lower case: a literal prefix
//     the regexp skips to);
//   - Azure AD client secrets whatever follows them (gitleaks' rule ends one
//     only at white space, a quote, "<", ")" or ","), up to their 40
//     characters;
//   - Docker Hub personal and organisation access tokens (dckr_pat_…,
//     dckr_oat_…; no gitleaks rule);
//   - the values of cookies in a Cookie or Set-Cookie header, a curl
//     --cookie argument or a document.cookie assignment (see cookieSpans;
//     curl -b is cli.go's).
func webRules() []extraRule {
	return []extraRule{
		{id: "discord-webhook-url", keywords: []string{"discord"},
			re: regexp.MustCompile(`discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d{5,30}/([A-Za-z0-9_-]{20,})`)},
		{id: "slack-webhook-url", keywords: []string{"hooks.slack.com"},
			re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})`)},
		{id: "azure-ad-client-secret", keywords: []string{"q~"},
			re: regexp.MustCompile(`(?:^|[^a-zA-Z0-9_~.-])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})`)},
		{id: "docker-pat", keywords: []string{"dckr_"},
			re: regexp.MustCompile(`\b(dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,})`)},
		{id: "cookie", keywords: []string{"cookie"}, scan: cookieSpans},
	}
}

// cookieHeader matches, at a keyword, what precedes a cookie list: a
// header's or field's name and separator (Cookie:, "Cookie": ",
// document.cookie = ") or a curl flag (group 1), and the quote the list is
// in (group 2).
var cookieHeader = regexp.MustCompile("(?i)^(?:cookie[\"'`\\]]*[ \\t]*(?::|=|=>)|(--cookie|-b)(?:[ \\t]+|=)?)[ \\t]*([\"'`]?)")

// maxCookieList bounds the cookie list read after one header: a longer
// line is read from its next header on.
const maxCookieList = 4096

// cookieAttributes are the names of Set-Cookie's attributes, which are not
// cookies.
var cookieAttributes = []string{"path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority", "partitioned", "version", "comment"}

// cookieSpans returns the values of the cookie list that follows the
// header, field or flag at k (see cookieHeader): name=value pairs
// separated by ";", up to the closing quote, or the end of the line for a
// header, or white space for a flag's bare argument. A value is kept when
// cookieValue accepts it for its name. Its second result is where later
// keywords are to be read again: past the last value found.
func cookieSpans(s string, k int) ([]span, int) {
	if k > 0 && isWordByte(s[k-1]) && s[k-1] != '_' {
		return nil, k // "mycookie", not a header
	}
	if k >= 2 && s[k-2:k] == "--" {
		k -= 2 // the keyword of --cookie
	}
	m := cookieHeader.FindStringSubmatchIndex(s[k:min(len(s), k+maxCookieList)])
	if m == nil {
		return nil, k
	}
	start := k + m[1]
	end := min(len(s), start+maxCookieList)
	stops := "\n\"'`" // a header's list ends at its line's end or a quote
	switch {
	case m[5] > m[4]:
		stops = "\n" + s[k+m[4]:k+m[5]] // the closing quote
	case m[3] > m[2]:
		stops += " \t" // a flag's bare argument
	}
	if i := strings.IndexAny(s[start:end], stops); i >= 0 {
		end = start + i
	}
	var out []span
	next := k
	for off := start; off < end; {
		pair := end
		if i := strings.IndexByte(s[off:end], ';'); i >= 0 {
			pair = off + i
		}
		if eq := strings.IndexByte(s[off:pair], '='); eq > 0 {
			name := strings.ToLower(strings.TrimSpace(s[off : off+eq]))
			vs, ve := off+eq+1, pair
			for ve > vs && isSpace(s[ve-1]) {
				ve--
			}
			if i := strings.IndexAny(s[vs:ve], " \t,"); i >= 0 && !strings.HasPrefix(name, "expires") {
				ve = vs + i // a value ends at white space or a comma
			}
			if ve > vs && cookieValue(name, s[vs:ve]) && !isAttribute(name) {
				out = append(out, span{start: vs, end: ve})
				next = ve
			}
		}
		off = pair + 1
	}
	return out, next
}

// isAttribute reports whether a cookie name is one of Set-Cookie's
// attributes.
func isAttribute(name string) bool {
	for _, a := range cookieAttributes {
		if name == a {
			return true
		}
	}
	return false
}
