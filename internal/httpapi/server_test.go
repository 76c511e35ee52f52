package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/usage"
	"github.com/google/go-cmp/cmp"
)

// keyRing is a KeyLookup whose keys tests can swap, as the cache does.
type keyRing struct {
	mu  sync.Mutex
	idx *apikey.Index
}

func (k *keyRing) set(t testing.TB, keys ...apikey.Key) {
	t.Helper()
	idx, err := apikey.NewIndex(keys)
	if err != nil {
		t.Fatal(err)
	}
	k.mu.Lock()
	k.idx = idx
	k.mu.Unlock()
}

func (k *keyRing) Lookup(s string) *apikey.Key {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.idx.Lookup(s)
}

type usageLog struct {
	mu   sync.Mutex
	recs []usage.Record
}

func (u *usageLog) Record(r usage.Record) { u.mu.Lock(); u.recs = append(u.recs, r); u.mu.Unlock() }
func (u *usageLog) all() []usage.Record {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]usage.Record(nil), u.recs...)
}

type fakeSessions map[string]session.Identity

func (f fakeSessions) Verify(_ context.Context, tok string) (session.Identity, error) {
	if id, ok := f[tok]; ok {
		return id, nil
	}
	return session.Identity{}, session.ErrInvalid
}

type harness struct {
	srv   *Server
	h     http.Handler
	keys  *keyRing
	usage *usageLog
	now   time.Time
	// plaintext keys by name
	plain map[string]string
	log   *bytes.Buffer
}

func mkKey(t testing.TB, id string, scopes ...string) (string, apikey.Key) {
	t.Helper()
	p, h, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return p, apikey.Key{ID: id, ProjectID: "prj_" + id, Project: "p", Hash: h, Scopes: scopes, CreatedAt: time.Unix(0, 0)}
}

func newHarness(t testing.TB, policy ratelimit.Policy, extra ...route) *harness {
	t.Helper()
	h := &harness{keys: &keyRing{}, usage: &usageLog{}, now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), plain: map[string]string{}, log: &bytes.Buffer{}}
	var keys []apikey.Key
	for _, spec := range []struct {
		name   string
		scopes []string
	}{
		{"read", []string{apikey.ScopeAssetsRead}},
		{"risk", []string{apikey.ScopeRiskRead}},
		{"none", []string{apikey.ScopeOHLCVRead}},
	} {
		p, k := mkKey(t, "key_"+spec.name, spec.scopes...)
		h.plain[spec.name] = p
		keys = append(keys, k)
	}
	h.keys.set(t, keys...)
	h.srv = New(Deps{
		Log: slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})), Metrics: metrics.New(),
		Keys: h.keys, Limiter: ratelimit.NewMemory(), Usage: h.usage,
		Sessions:      fakeSessions{"good": {UserID: "user_1", SessionID: "sess_1", PrimaryEmail: "a@example.com"}},
		DefaultPolicy: policy, Now: func() time.Time { return h.now },
		// Generous: blocks of the fakes finish at once, and a loaded
		// machine must not turn them into timeouts (TestIncludeDeadline
		// sets its own).
		IncludeDeadline: time.Minute,
	})
	h.h = h.srv.build(extra)
	return h
}

type resp struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (h *harness) do(t *testing.T, method, path string, hdr map[string]string, body io.Reader) resp {
	t.Helper()
	req := httptest.NewRequest(method, path, body)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := h.serve(t, req)
	r := resp{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if rec.Body.Len() > 0 && rec.Body.Bytes()[0] == '{' {
		if err := json.Unmarshal(rec.Body.Bytes(), &r.body); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, rec.Body)
		}
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Fatalf("%s %s: no x-request-id header", method, path)
	}
	return r
}

// serve runs req through the server and checks the response (status,
// headers, body) against the OpenAPI contract. Every endpoint test's
// request goes through here (do, send, and the tests that need the raw
// recorder), so a handler drifting from api/openapi.yaml fails the suite.
func (h *harness) serve(t testing.TB, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.h.ServeHTTP(rec, req)
	checkContract(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	return rec
}

func errTag(r resp) string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["_tag"].(string)
	return s
}

func errCode(r resp) string {
	e, _ := r.body["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	s, _ := d["code"].(string)
	return s
}

// test routes standing in for scope-guarded endpoints.
func testRoutes() []route {
	ok := func(w http.ResponseWriter, r *http.Request) error {
		return writeJSON(w, http.StatusOK, map[string]any{"ok": true, "key": KeyFrom(r.Context()).ID})
	}
	return []route{
		{pattern: "GET /test/read", scopes: read, cache: "private, max-age=30", handler: ok},
		{pattern: "GET /test/risk", scopes: []string{apikey.ScopeAssetsRead, apikey.ScopeRiskRead}, handler: ok},
		{pattern: "GET /test/panic", scopes: read, handler: func(http.ResponseWriter, *http.Request) error { panic("boom: secret internals") }},
		{pattern: "GET /test/fail", scopes: read, handler: func(http.ResponseWriter, *http.Request) error {
			return errors.New("dial tcp 10.0.0.1:5432: connection refused")
		}},
		{pattern: "GET /test/aborted", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`[1,`))
			return errors.New("write tcp: broken pipe") // the client went away mid-body
		}},
		{pattern: "POST /test/body", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			var in struct {
				Mints []string `json:"mints"`
			}
			if err := decodeJSON(w, r, &in); err != nil {
				return err
			}
			return writeJSON(w, http.StatusOK, map[string]any{"n": len(in.Mints)})
		}},
	}
}

func TestAuthMatrix(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	cases := []struct {
		name       string
		path       string
		key        string // name in h.plain, or a literal when prefixed with "lit:"
		wantStatus int
		wantTag    string
	}{
		{"no key", "/test/read", "", 401, "UnauthorizedError"},
		{"malformed key", "/test/read", "lit:nope", 401, "UnauthorizedError"},
		{"well-formed unknown key", "/test/read", "lit:adk_" + strings.Repeat("0", 64), 401, "UnauthorizedError"},
		{"right scope", "/test/read", "read", 200, ""},
		{"wrong scope", "/test/read", "none", 403, "ForbiddenError"},
		{"any-of scope: assets:read", "/test/risk", "read", 200, ""},
		{"any-of scope: assets:risk:read", "/test/risk", "risk", 200, ""},
		{"any-of scope: neither", "/test/risk", "none", 403, "ForbiddenError"},
		{"health needs no key", "/v1/health", "", 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			switch {
			case strings.HasPrefix(tc.key, "lit:"):
				hdr["X-Api-Key"] = strings.TrimPrefix(tc.key, "lit:")
			case tc.key != "":
				hdr["X-Api-Key"] = h.plain[tc.key]
			}
			r := h.do(t, "GET", tc.path, hdr, nil)
			if r.status != tc.wantStatus || errTag(r) != tc.wantTag {
				t.Fatalf("got %d %q, want %d %q: %s", r.status, errTag(r), tc.wantStatus, tc.wantTag, r.raw)
			}
			if tc.wantStatus >= 400 && r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("error Cache-Control = %q, want no-store", r.header.Get("Cache-Control"))
			}
		})
	}
}

func TestRevokedAndRegeneratedKeys(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	oldPlain, old := mkKey(t, "key_old", apikey.ScopeAssetsRead)
	h.keys.set(t, old)
	if r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": oldPlain}, nil); r.status != 200 {
		t.Fatalf("active key: %d", r.status)
	}
	// Regenerate: the old row is revoked and a new one added.
	newPlain, nk := mkKey(t, "key_new", apikey.ScopeAssetsRead)
	now := time.Now()
	old.RevokedAt = &now
	h.keys.set(t, old, nk)
	if r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": oldPlain}, nil); r.status != 401 || errTag(r) != "UnauthorizedError" {
		t.Fatalf("old key after regenerate: %d %s", r.status, r.raw)
	}
	if r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": newPlain}, nil); r.status != 200 || r.body["key"] != "key_new" {
		t.Fatalf("new key: %d %s", r.status, r.raw)
	}
}

func TestRequestID(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	if r := h.do(t, "GET", "/v1/health", map[string]string{"X-Request-Id": "client-abc.123:x_y"}, nil); r.header.Get("X-Request-Id") != "client-abc.123:x_y" {
		t.Errorf("safe caller id not echoed: %q", r.header.Get("X-Request-Id"))
	}
	for _, bad := range []string{strings.Repeat("a", 129), "has space", "new\nline", "ünïcode", "<script>"} {
		r := h.do(t, "GET", "/v1/health", map[string]string{"X-Request-Id": bad}, nil)
		if got := r.header.Get("X-Request-Id"); got == bad || got == "" {
			t.Errorf("unsafe id %q: got %q, want a fresh id", bad, got)
		}
	}
	a := h.do(t, "GET", "/v1/health", nil, nil).header.Get("X-Request-Id")
	b := h.do(t, "GET", "/v1/health", nil, nil).header.Get("X-Request-Id")
	if a == b {
		t.Errorf("two requests share id %q", a)
	}
	if !safeRequestID(strings.Repeat("a", 128)) {
		t.Error("128-character id refused")
	}
}

func TestRoutingErrors(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	r := h.do(t, "GET", "/v1/no-such-thing", nil, nil)
	if r.status != 404 || errTag(r) != "NotFoundError" {
		t.Fatalf("unknown route: %d %s", r.status, r.raw)
	}
	r = h.do(t, "DELETE", "/v1/health", nil, nil)
	if r.status != 405 || errTag(r) != "BadRequestError" || errCode(r) != "method_not_allowed" || r.header.Get("Allow") == "" {
		t.Fatalf("wrong method: %d %v %s", r.status, r.header, r.raw)
	}
}

func TestHealth(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	r := h.do(t, "GET", "/v1/health", nil, nil)
	if d := cmp.Diff(map[string]any{"ok": true, "version": h.srv.d.Version}, r.body); r.status != 200 || d != "" {
		t.Fatalf("health %d (-want +got):\n%s", r.status, d)
	}
}

func TestPanicAndInternalErrors(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	for _, path := range []string{"/test/panic", "/test/fail"} {
		r := h.do(t, "GET", path, map[string]string{"X-Api-Key": h.plain["read"], "X-Request-Id": "req-" + path[6:]}, nil)
		if r.status != 500 || errTag(r) != "InternalServerError" {
			t.Fatalf("%s: %d %s", path, r.status, r.raw)
		}
		if strings.Contains(r.raw, "secret") || strings.Contains(r.raw, "10.0.0.1") {
			t.Fatalf("%s leaks internals: %s", path, r.raw)
		}
		if !strings.Contains(h.log.String(), "request_id=req-"+path[6:]) {
			t.Fatalf("%s: log lacks the request id:\n%s", path, h.log)
		}
	}
	if !strings.Contains(h.log.String(), "boom: secret internals") {
		t.Error("panic value not logged")
	}
}

func TestBodies(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	key := h.plain["read"]
	big := `{"mints":["` + strings.Repeat("x", MaxBodyBytes) + `"]}`
	cases := []struct {
		name, ct, body string
		status         int
		code           string
	}{
		{"ok", "application/json", `{"mints":["a","b"]}`, 200, ""},
		{"charset ok", "application/json; charset=utf-8", `{"mints":[]}`, 200, ""},
		{"no content type", "", `{"mints":[]}`, 400, "unsupported_content_type"},
		{"wrong content type", "text/plain", `{"mints":[]}`, 400, "unsupported_content_type"},
		{"malformed", "application/json", `{"mints":[`, 400, "invalid_json"},
		{"syntax", "application/json", `{"mints":[1,}`, 400, "invalid_json"},
		{"empty", "application/json", ``, 400, "invalid_json"},
		{"wrong type", "application/json", `{"mints":"abc"}`, 400, "invalid_type"},
		{"not an object", "application/json", `[1,2]`, 400, "invalid_type"},
		{"trailing data", "application/json", `{"mints":[]} {}`, 400, "invalid_json"},
		{"oversized", "application/json", big, 413, "body_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{"X-Api-Key": key}
			if tc.ct != "" {
				hdr["Content-Type"] = tc.ct
			}
			r := h.do(t, "POST", "/test/body", hdr, strings.NewReader(tc.body))
			if r.status != tc.status || errCode(r) != tc.code {
				t.Fatalf("got %d code %q, want %d %q: %.300s", r.status, errCode(r), tc.status, tc.code, r.raw)
			}
			if tc.status >= 400 && errTag(r) != "BadRequestError" {
				t.Fatalf("tag %q, want BadRequestError", errTag(r))
			}
		})
	}
}

func TestWhoami(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	want := map[string]any{"userId": "user_1", "sessionId": "sess_1", "primaryEmail": "a@example.com"}
	cases := []struct {
		name   string
		hdr    map[string]string
		status int
	}{
		{"cookie", map[string]string{"Cookie": "__session=good"}, 200},
		{"bearer", map[string]string{"Authorization": "Bearer good"}, 200},
		{"bearer lower-case scheme", map[string]string{"Authorization": "bearer good"}, 200},
		{"missing", nil, 401},
		{"invalid cookie", map[string]string{"Cookie": "__session=forged"}, 401},
		{"invalid bearer", map[string]string{"Authorization": "Bearer forged"}, 401},
		{"basic auth is no session", map[string]string{"Authorization": "Basic Z29vZA=="}, 401},
		{"api key is no session", map[string]string{"X-Api-Key": "good"}, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do(t, "GET", "/v1/whoami", tc.hdr, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if tc.status == 200 {
				if d := cmp.Diff(want, r.body); d != "" {
					t.Fatalf("body (-want +got):\n%s", d)
				}
			} else if errTag(r) != "Unauthorized" {
				t.Fatalf("tag %q, want Unauthorized", errTag(r))
			}
			if r.header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
			}
		})
	}
}

func TestRateLimitAndQuota(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{Requests: 3, Window: 10 * time.Second}, testRoutes()...)
	key := map[string]string{"X-Api-Key": h.plain["read"]}
	for i := range 3 {
		r := h.do(t, "GET", "/test/read", key, nil)
		if r.status != 200 {
			t.Fatalf("request %d: %d", i, r.status)
		}
		if got, want := r.header.Get("RateLimit-Remaining"), []string{"2", "1", "0"}[i]; got != want {
			t.Fatalf("request %d: RateLimit-Remaining %q, want %q", i, got, want)
		}
		if r.header.Get("RateLimit-Limit") != "3" || r.header.Get("RateLimit-Reset") != "10" {
			t.Fatalf("request %d: headers %v", i, r.header)
		}
	}
	r := h.do(t, "GET", "/test/read", key, nil)
	if r.status != 429 || errTag(r) != "RateLimitedError" || r.header.Get("Retry-After") != "10" {
		t.Fatalf("4th request: %d %v %s", r.status, r.header, r.raw)
	}
	// A 403 is refused before the limiter: it costs nothing and is not 429.
	r = h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": h.plain["none"]}, nil)
	if r.status != 403 || r.header.Get("RateLimit-Limit") != "" {
		t.Fatalf("forbidden request: %d %v", r.status, r.header)
	}
	// The window slides: after it passes, requests are allowed again.
	h.now = h.now.Add(20 * time.Second)
	if r := h.do(t, "GET", "/test/read", key, nil); r.status != 200 {
		t.Fatalf("after window: %d", r.status)
	}

	q := newHarness(t, ratelimit.Policy{QuotaPerMonth: 2}, testRoutes()...)
	qk := map[string]string{"X-Api-Key": q.plain["read"]}
	q.do(t, "GET", "/test/read", qk, nil)
	q.do(t, "GET", "/test/read", qk, nil)
	r = q.do(t, "GET", "/test/read", qk, nil)
	if r.status != 429 || !strings.Contains(r.raw, "quota") {
		t.Fatalf("over quota: %d %s", r.status, r.raw)
	}
	// Per-key overrides beat the defaults.
	p, k := mkKey(t, "key_vip", apikey.ScopeAssetsRead)
	k.Limits.QuotaPerMonth = 100
	q.keys.set(t, k)
	if r := q.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": p}, nil); r.status != 200 {
		t.Fatalf("override: %d", r.status)
	}
}

type failingLimiter struct{}

func (failingLimiter) Allow(context.Context, string, ratelimit.Policy, time.Time) (ratelimit.Decision, error) {
	return ratelimit.Decision{}, errors.New("redis down")
}

func TestLimiterFailsOpen(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{Requests: 1, Window: time.Second}, testRoutes()...)
	h.srv.d.Limiter = failingLimiter{}
	h.h = h.srv.build(testRoutes())
	if r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": h.plain["read"]}, nil); r.status != 200 {
		t.Fatalf("limiter down: %d", r.status)
	}
}

func TestUsageRecorded(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": h.plain["read"]}, nil)
	h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": h.plain["none"]}, nil) // 403: recorded, not charged
	h.do(t, "GET", "/test/read", nil, nil)                                             // 401: no key
	h.do(t, "GET", "/v1/health", nil, nil)                                             // public
	got := h.usage.all()
	if len(got) != 2 {
		t.Fatalf("usage records: %+v; want the 200 and the 403", got)
	}
	if r := got[0]; r.KeyID != "key_read" || r.Route != "GET /test/read" || r.Status != 200 || r.ProjectID != "prj_key_read" || r.At.IsZero() || !r.Charged {
		t.Fatalf("usage record: %+v", r)
	}
	if r := got[1]; r.KeyID != "key_none" || r.Status != 403 || r.Charged {
		t.Fatalf("usage record of the 403: %+v", r)
	}
}

func TestCacheControl(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": h.plain["read"]}, nil)
	if r.header.Get("Cache-Control") != "private, max-age=30" {
		t.Fatalf("Cache-Control %q", r.header.Get("Cache-Control"))
	}
}

// TestErrorAfterResponseStarted: a handler failing after its response
// started (a client gone mid-body) does not get an error envelope glued
// to its body, and is not logged as a server failure.
func TestErrorAfterResponseStarted(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	r := h.do(t, "GET", "/test/aborted", map[string]string{"X-Api-Key": h.plain["read"]}, nil)
	if r.status != 200 || r.raw != `[1,` {
		t.Fatalf("got %d %q; want the started 200 response untouched", r.status, r.raw)
	}
	if logs := h.log.String(); strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "response aborted after it started") {
		t.Errorf("logs:\n%s", logs)
	}
}
