package server

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/lexsona/lexsona/engine"
)

// Browsers are the one client that can be made to call a local service
// against its user's will: a web page can send simple cross-site requests to
// 127.0.0.1, and with DNS rebinding read the answers too. The service is for
// agents and tools, never for pages, so:
//   - a request whose Origin is not the service itself, or whose
//     Sec-Fetch-Site says cross-site, is refused (403);
//   - when listening on a loopback address, a Host header that is not a
//     loopback name or address (or one of Config.AllowedHosts) is refused
//     (403): that is what a rebound DNS name looks like.
//
// Non-browser clients send neither Origin nor Sec-Fetch-Site, and a Host
// naming the address they dialled, so they are not affected. Bodies must
// also carry a JSON or YAML Content-Type (see checkContentType), which a page
// cannot send cross-site without a CORS preflight this server never grants.

// hostName is a DNS name, lower-cased, as an allowed host may be (IP
// addresses are accepted too, by net.ParseIP).
var hostName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$`)

// ParseAllowedHosts returns the set of Config.AllowedHosts, lower-cased and
// without ports. Errors: EINVALID naming the first entry that is neither a
// DNS name nor an IP address.
func ParseAllowedHosts(hosts []string) (map[string]bool, error) {
	set := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		name := strings.ToLower(hostOnly(strings.TrimSpace(h)))
		if !hostName.MatchString(name) && net.ParseIP(strings.Trim(name, "[]")) == nil {
			return nil, engine.Errorf(engine.EINVALID, "allowed host %q is not a host name (like lexsona.internal or 10.0.0.5)", clip(h))
		}
		set[strings.Trim(name, "[]")] = true
	}
	return set, nil
}

// loopbackHost reports whether host (without port) names the local machine.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port from a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// browserGuard is the middleware described above.
func (s *Server) browserGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		// The probe listener answers nothing but the health probes, to
		// whatever Host the prober (a kubelet, by the pod's address) names.
		if s.checkHost.Load() && !onProbeListener(req) {
			h := hostOnly(req.Host)
			if !loopbackHost(h) && !s.allowedHost[strings.ToLower(h)] {
				return &apiError{codeForbidden, "Host " + clip(req.Host) + " is not this service's: use 127.0.0.1 or localhost (or start the server with --allowed-hosts naming it)"}
			}
		}
		if origin := req.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if err != nil || u.Host == "" || !strings.EqualFold(u.Host, req.Host) {
				return &apiError{codeForbidden, "cross-origin requests are refused (Origin " + clip(origin) + ")"}
			}
		}
		if strings.EqualFold(req.Header.Get("Sec-Fetch-Site"), "cross-site") {
			return &apiError{codeForbidden, "cross-site requests are refused"}
		}
		return next(c)
	}
}
