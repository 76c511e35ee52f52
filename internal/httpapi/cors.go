package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// CORS (docs/http.md): off unless Deps.CORSOrigins lists origins. A
// request whose Origin is listed (or any origin with "*") gets
// Access-Control-Allow-Origin echoing it; a preflight from such an
// origin is answered 204 here; other origins get no CORS headers (their
// preflights reach the router, which answers 405).

const (
	corsAllowMethods  = "GET, POST, PUT, PATCH, DELETE, OPTIONS"
	corsAllowHeaders  = "X-Api-Key, Content-Type, If-None-Match, X-Request-Id, Authorization, Last-Event-Id"
	corsExposeHeaders = "ETag, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After"
	corsMaxAge        = "600"
)

type corsPolicy struct {
	any     bool
	origins []string
}

func newCORSPolicy(origins []string) *corsPolicy {
	p := &corsPolicy{}
	for _, o := range origins {
		o = strings.TrimRight(strings.TrimSpace(o), "/")
		switch o {
		case "":
		case "*":
			p.any = true
		default:
			p.origins = append(p.origins, o)
		}
	}
	if !p.any && len(p.origins) == 0 {
		return nil
	}
	return p
}

func (p *corsPolicy) allows(origin string) bool {
	return origin != "" && (p.any || slices.Contains(p.origins, origin))
}

func (s *Server) withCORS(next http.Handler) http.Handler {
	p := newCORSPolicy(s.d.CORSOrigins)
	if p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if !p.allows(origin) {
			next.ServeHTTP(w, r)
			return
		}
		if rw, ok := w.(*recorder); ok && r.Method == http.MethodOptions {
			rw.matched = true // answered here, not by the router
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			h.Set("Cache-Control", noStore)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
	})
}
