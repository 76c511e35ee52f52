package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/coalesce"
	"github.com/assetd/assetd/internal/framing"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/usage"
)

// recorder captures the status of a response. Route handlers mark it
// matched; the mux's own 404/405 writes on an unmatched request are
// swallowed and replaced by the error envelope.
type recorder struct {
	http.ResponseWriter
	status  int
	matched bool
	// nonFinite is the JSON path of the first NaN or ±Inf writeJSON
	// wrote as null ("" when none).
	nonFinite string
	// cond is set by wrap on cacheable GETs (body.go); gz caches the
	// gzip form of their large bodies.
	cond conditional
	gz   *gzipCache
	// conn, on an HTTP/1.x connection accepted through coalesce.Listen,
	// lets writeBody send headers and body in one write.
	conn *coalesce.Conn
}

func (rw *recorder) WriteHeader(code int) {
	if !rw.matched {
		rw.status = code
		return
	}
	if rw.status == 0 {
		rw.status = code
	}
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if !rw.matched {
		return len(b), nil
	}
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	return rw.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

// reqHeader is h.Get(key) for a key already in canonical form, as every
// header of a request net/http parsed is (HTTP/1.x and HTTP/2 alike): the
// value is read without canonicalising the key again, which Get does on
// every call (a few hundred instructions each, four on every
// authenticated request).
func reqHeader(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// idSource makes request ids: a random per-process prefix and a counter,
// unique without a syscall per request.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

func newIDSource() *idSource {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &idSource{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (s *idSource) next() string {
	var b [48]byte
	return string(strconv.AppendUint(append(b[:0], s.prefix...), s.n.Add(1), 36))
}

// safeRequestID accepts a caller's id of 1..128 characters from
// [A-Za-z0-9._:-].
func safeRequestID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

func (s *Server) withRequestID(next http.Handler) http.Handler {
	ids := newIDSource()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := reqHeader(r.Header, "X-Request-Id")
		if !safeRequestID(id) {
			id = ids.next()
		}
		// One allocation holds the request's state, its recorder and the
		// x-request-id header value.
		ri := &reqInfo{id: id}
		ri.idHdr[0] = id
		if r.ProtoMajor == 1 {
			ri.rec.conn = coalesce.FromContext(r.Context())
		}
		w.Header()["X-Request-Id"] = ri.idHdr[:1:1]
		next.ServeHTTP(w, r.WithContext(contextWith(r.Context(), ri)))
	})
}

// withFraming answers 400 ambiguous_framing, and closes the connection, to
// a request that carried both Content-Length and Transfer-Encoding: the
// connection's listener (internal/framing) marks its head, since net/http
// keeps Transfer-Encoding, deletes Content-Length and shows the handler
// nothing of the conflict. Where the request ends is ambiguous, so
// nothing more is read from that connection.
func (s *Server) withFraming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Header[framing.Marker]; !ok {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		writeError(w, r, s.d.Log, apierr.BadRequestCode("ambiguous_framing",
			"the request carries both Content-Length and Transfer-Encoding", nil))
	})
}

func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.d.Metrics.Panics.Inc()
			s.d.Log.ErrorContext(r.Context(), "panic serving request", "request_id", requestID(r.Context()),
				"method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if rw, ok := w.(*recorder); ok {
				rw.matched = true
				if rw.status != 0 {
					return // headers already sent; nothing more to do
				}
			}
			writeError(w, r, s.d.Log, apierr.Wrap(nil))
		}()
		next.ServeHTTP(w, r)
	})
}

// withInstrument counts, times and logs every request by route pattern.
func (s *Server) withInstrument(next http.Handler) http.Handler {
	s.rm.Store(&map[string]*routeMetrics{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.d.Metrics.InFlight.Inc()
		var rw *recorder
		if ri := info(r.Context()); ri != nil {
			rw = &ri.rec
			ri.start = start
		} else {
			rw = &recorder{}
		}
		rw.ResponseWriter = w
		defer func() {
			s.d.Metrics.InFlight.Dec()
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			status := rw.status
			if status == 0 {
				status = http.StatusOK
			}
			d := time.Since(start)
			s.routeMetrics(route).observe(status, d)
			ri := info(r.Context())
			if rw.nonFinite != "" {
				if _, seen := s.nonFinite.LoadOrStore(route+" "+rw.nonFinite, struct{}{}); !seen {
					s.d.Log.WarnContext(r.Context(), "non-finite number written as null (logged once per route and field)",
						"request_id", ri.id, "route", route, "field", rw.nonFinite)
				}
			}
			if !s.accessLogged(status, d) {
				return
			}
			keyID := ""
			if ri.key != nil {
				keyID = ri.key.ID
			}
			s.d.Log.LogAttrs(r.Context(), accessLevel(route, status), "request",
				slog.String("request_id", ri.id), slog.String("method", r.Method), slog.String("route", route),
				slog.String("path", r.URL.Path), slog.Int("status", status), slog.Duration("dur", d), slog.String("key", keyID))
		}()
		next.ServeHTTP(rw, r)
	})
}

// Access log modes (--access-log).
const (
	AccessLogOff     = "off"
	AccessLogSampled = "sampled"
	AccessLogAll     = "all"
	// DefaultAccessLogSample: one in 100 ordinary requests is logged.
	DefaultAccessLogSample = 100
	// DefaultAccessLogSlow: requests this slow are always logged.
	DefaultAccessLogSlow = 500 * time.Millisecond
)

// accessLogged decides whether a finished request gets an access-log
// line: all of them, none, or (sampled) every server error, every
// refusal other than 429, every request slower than AccessLogSlow and
// one in AccessLogSample of the rest.
func (s *Server) accessLogged(status int, d time.Duration) bool {
	switch s.d.AccessLog {
	case AccessLogAll:
		return true
	case AccessLogOff:
		return false
	}
	if status >= 500 || (status >= 400 && status != http.StatusTooManyRequests) || d >= s.d.AccessLogSlow {
		return true
	}
	return (s.logged.Add(1)-1)%s.d.AccessLogSample == 0
}

// dispatch serves the mux and turns its unmatched 404/405 into envelopes.
func (s *Server) dispatch(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		rw, ok := w.(*recorder)
		if !ok || rw.matched {
			return
		}
		rw.matched = true
		code := rw.status
		rw.status = 0
		if code == http.StatusMethodNotAllowed {
			w.Header().Del("X-Content-Type-Options")
			writeError(w, r, s.d.Log, apierr.Newf(apierr.MethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path).
				WithDetails(apierr.Details{"code": "method_not_allowed", "allow": w.Header().Get("Allow")}))
			return
		}
		w.Header().Del("X-Content-Type-Options")
		w.Header().Del("Allow")
		writeError(w, r, s.d.Log, apierr.Newf(apierr.NotFound, "no route for %s %s", r.Method, r.URL.Path))
	})
}

// wrap adapts one route: marks the request matched, authenticates, checks
// scope before charging the limiter, runs the handler, records usage.
func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rw, ok := w.(*recorder); ok {
			rw.matched = true
		}
		if rt.auth == authNone || rt.auth == authSession {
			if err := rt.handler(w, r); err != nil {
				writeError(w, r, s.d.Log, err)
			}
			return
		}
		ri := info(r.Context())
		start := ri.start
		if start.IsZero() {
			start = time.Now()
		}
		if err := s.authorize(w, r, rt); err != nil {
			writeError(w, r, s.d.Log, err)
		} else {
			// A shared value slice: Header.Set and Add replace it, never
			// write into it.
			w.Header()["Cache-Control"] = rt.cacheHdr
			if rw, ok := w.(*recorder); ok && rt.conditional() && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				rw.cond = conditional{on: true, ifNoneMatch: reqHeader(r.Header, "If-None-Match"), gzip: acceptsGzip(reqHeader(r.Header, "Accept-Encoding"))}
				rw.gz = &s.gz
			}
			if err := rt.handler(w, r); err != nil {
				writeError(w, r, s.d.Log, err)
			}
		}
		// Every authenticated request is recorded, refused ones (403, 429)
		// included; only the limiter decides what is charged.
		k := ri.key
		if k == nil {
			return
		}
		status := http.StatusOK
		if rw, ok := w.(*recorder); ok && rw.status != 0 {
			status = rw.status
		}
		s.d.Usage.Record(usage.Record{KeyID: k.ID, ProjectID: k.ProjectID, Route: rt.pattern, Status: status,
			Latency: time.Since(start), At: start, Charged: ri.charged})
	})
}

// authorize authenticates the key, checks the route's scope and charges
// the limiter, setting the RateLimit headers.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, rt route) error {
	plain := reqHeader(r.Header, "X-Api-Key")
	if plain == "" {
		s.d.Metrics.AuthFails.WithLabelValues("missing").Inc()
		return apierr.New(apierr.Unauthorized, "Missing API key: send it in the x-api-key header")
	}
	k := s.d.Keys.Lookup(plain)
	if k == nil {
		s.d.Metrics.AuthFails.WithLabelValues("invalid").Inc()
		msg := "Invalid API key: no active key with this secret"
		if s.d.Store != "" {
			// Say which store: a key created in another one (keys create
			// without --demo against serve --demo) is the usual cause.
			msg += " in this server's store (" + s.d.Store + ")"
		}
		return apierr.New(apierr.Unauthorized, msg)
	}
	info(r.Context()).key = k
	if !k.HasAnyScope(rt.scopes) {
		s.d.Metrics.AuthFails.WithLabelValues("scope").Inc()
		return apierr.New(apierr.Forbidden, "Insufficient scope").
			WithDetails(apierr.Details{"code": "insufficient_scope", "required": rt.scopes, "granted": k.Scopes})
	}
	p := s.policy(k)
	d, err := s.d.Limiter.Allow(r.Context(), k.ID, p, s.d.Now())
	if err != nil {
		s.d.Metrics.Limiter.WithLabelValues("error").Inc()
		s.d.Log.WarnContext(r.Context(), "rate limiter unavailable, failing open", "request_id", info(r.Context()).id, "err", err)
		return nil
	}
	h := w.Header()
	if p.Requests > 0 {
		setRateLimitHeaders(h, &info(r.Context()).rlHdr, d.Limit, d.Remaining, ceilSeconds(d.Reset))
	}
	if !d.Allowed {
		s.d.Metrics.Limiter.WithLabelValues(d.Reason).Inc()
		h.Set("Retry-After", strconv.FormatInt(ceilSeconds(d.RetryAfter), 10))
		msg := "Rate limited"
		if d.Reason == "quota" {
			msg = "Monthly quota exceeded"
		}
		return apierr.New(apierr.RateLimited, msg).WithDetails(apierr.Details{"code": d.Reason + "_limited"})
	}
	s.limAllowed.Inc()
	info(r.Context()).charged = true
	return nil
}

// policy is the key's limits over the server defaults.
func (s *Server) policy(k *apikey.Key) ratelimit.Policy {
	p := s.d.DefaultPolicy
	if l := k.Limits; l.RateRequests > 0 && l.RateWindow > 0 {
		p.Requests, p.Window = l.RateRequests, l.RateWindow
	}
	if k.Limits.QuotaPerMonth > 0 {
		p.QuotaPerMonth = k.Limits.QuotaPerMonth
	}
	return p
}

// setRateLimitHeaders sets RateLimit-Limit, -Remaining and -Reset with
// one allocation for the three values (keys in canonical form, as sent);
// vals (the request's reqInfo) backs the value slices.
func setRateLimitHeaders(h http.Header, vals *[3]string, limit, remaining int, reset int64) {
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], int64(limit), 10)
	i := len(b)
	b = strconv.AppendInt(b, int64(remaining), 10)
	j := len(b)
	b = strconv.AppendInt(b, reset, 10)
	all := string(b)
	vals[0], vals[1], vals[2] = all[:i], all[i:j], all[j:]
	v := vals[:]
	h["Ratelimit-Limit"], h["Ratelimit-Remaining"], h["Ratelimit-Reset"] = v[0:1:1], v[1:2:2], v[2:3:3]
}

func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}
