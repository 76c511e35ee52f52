package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/readiness"
)

// TestHealthCarriesVersion: /v1/health reports the build version.
func TestHealthCarriesVersion(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	h.srv.d.Version = "v1.2.3"
	h.h = h.srv.build(nil)
	r := h.do(t, "GET", "/v1/health", nil, nil)
	if r.status != 200 || r.body["version"] != "v1.2.3" || r.body["ok"] != true || r.header.Get("Cache-Control") != noStore {
		t.Fatalf("health: %d %v %s", r.status, r.header, r.raw)
	}
}

// TestRoot: GET / answers JSON (curl, API clients) or a short HTML page
// (browsers) pointing at the contract, the dashboard and the docs.
func TestRoot(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	h.srv.d.Version = "v1.2.3"
	h.srv.d.Dashboard = http.NotFoundHandler()
	h.h = h.srv.build(nil)
	for _, accept := range []string{"", "*/*", "application/json", "text/html;q=0, application/json"} {
		r := h.do(t, "GET", "/", map[string]string{"Accept": accept}, nil)
		links, _ := r.body["links"].(map[string]any)
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || r.header.Get("Vary") != "Accept" ||
			r.body["service"] != "assetd" || r.body["version"] != "v1.2.3" || links["openapi"] != "/openapi.json" ||
			links["dashboard"] != "/dashboard/" || !strings.Contains(r.body["docs"].(string), "docs/") {
			t.Fatalf("GET / (Accept %q): %d %v %s", accept, r.status, r.header, r.raw)
		}
	}
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	r := h.do(t, "GET", "/", map[string]string{"Accept": browser}, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET / as a browser: %d %v", r.status, r.header)
	}
	for _, want := range []string{`href="/openapi.json"`, `href="/dashboard/"`, "v1.2.3", "docs/"} {
		if !strings.Contains(r.raw, want) {
			t.Errorf("root page lacks %q:\n%s", want, r.raw)
		}
	}
	// Without a dashboard the page does not link one; other paths stay 404.
	h2 := newHarness(t, ratelimit.Policy{})
	if r := h2.do(t, "GET", "/", nil, nil); r.status != 200 || strings.Contains(r.raw, "dashboard") {
		t.Fatalf("GET / without a dashboard: %d %s", r.status, r.raw)
	}
	if r := h2.do(t, "GET", "/index.html", nil, nil); r.status != 404 || errTag(r) != "NotFoundError" {
		t.Fatalf("GET /index.html: %d %s", r.status, r.raw)
	}
}

// TestDashboardWithoutSlash: /dashboard redirects to /dashboard/, keeping
// the query.
func TestDashboardWithoutSlash(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	h.srv.d.Dashboard = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("dashboard")) })
	h.h = h.srv.build(nil)
	for path, want := range map[string]string{"/dashboard": "/dashboard/", "/dashboard?x=1": "/dashboard/?x=1"} {
		req := httptest.NewRequest("GET", path, nil)
		rec := httptest.NewRecorder()
		h.h.ServeHTTP(rec, req)
		if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != want {
			t.Errorf("GET %s: %d Location %q, want 301 %q", path, rec.Code, rec.Header().Get("Location"), want)
		}
	}
	req := httptest.NewRequest("GET", "/dashboard/", nil)
	rec := httptest.NewRecorder()
	h.h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.String() != "dashboard" {
		t.Fatalf("GET /dashboard/: %d %s", rec.Code, rec.Body)
	}
}

// TestUnauthorizedChallenge: every 401 names its scheme in
// WWW-Authenticate, and an unknown key's message names the server's store
// (a key created in another store is the usual cause).
func TestUnauthorizedChallenge(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{}, testRoutes()...)
	h.srv.d.Store = "SQLite in ./data-demo; CLI commands reach it with --demo"
	h.h = h.srv.build(testRoutes())
	for _, tc := range []struct {
		name, path, key, challenge, msg string
	}{
		{"missing key", "/test/read", "", `ApiKey header="x-api-key"`, "x-api-key header"},
		{"unknown key", "/test/read", "adk_" + strings.Repeat("0", 64), `ApiKey header="x-api-key"`, "this server's store (SQLite in ./data-demo; CLI commands reach it with --demo)"},
		{"whoami without a session", "/v1/whoami", "", `Bearer realm="assetd"`, "Missing session"},
	} {
		hdr := map[string]string{}
		if tc.key != "" {
			hdr["X-Api-Key"] = tc.key
		}
		r := h.do(t, "GET", tc.path, hdr, nil)
		msg, _ := r.body["error"].(map[string]any)["message"].(string)
		if r.status != 401 || r.header.Get("WWW-Authenticate") != tc.challenge || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s: %d WWW-Authenticate %q message %q", tc.name, r.status, r.header.Get("WWW-Authenticate"), msg)
		}
	}
	// Without a store description the message is the plain one.
	h.srv.d.Store = ""
	h.h = h.srv.build(testRoutes())
	r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": "adk_" + strings.Repeat("0", 64)}, nil)
	if msg := r.body["error"].(map[string]any)["message"]; msg != "Invalid API key: no active key with this secret" {
		t.Fatalf("unknown key without a store description: %q", msg)
	}
	// Refusals other than 401 carry no challenge.
	if r := h.do(t, "GET", "/test/read", map[string]string{"X-Api-Key": h.plain["none"]}, nil); r.status != 403 || r.header.Get("WWW-Authenticate") != "" {
		t.Fatalf("403: %d %v", r.status, r.header)
	}
}

// switchReadiness answers the report it is set to.
type switchReadiness struct {
	mu  sync.Mutex
	rep readiness.Report
}

func (s *switchReadiness) Check(context.Context) readiness.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rep
}

func (s *switchReadiness) set(ready bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rep = readiness.Report{Ready: ready, Store: readiness.StoreCheck{OK: true}, Registry: readiness.RegistryCheck{OK: true, Assets: 95},
		Markets: readiness.MarketCheck{OK: ready, Configured: true, MinCoverage: 0.5, Coverage: map[string]float64{"any": 0.1}}}
}

// TestReadinessLoggedOncePerChange: probes of a not-ready server log one
// WARN line per change of state (not one ERROR per probe); the 503s are
// access-logged at DEBUG only.
func TestReadinessLoggedOncePerChange(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	var buf bytes.Buffer
	var mu sync.Mutex
	h.srv.d.Log = slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.srv.d.AccessLog = AccessLogAll
	rd := &switchReadiness{}
	h.srv.d.Readiness = rd
	h.h = h.srv.build(nil)
	probe := func(n, want int) {
		t.Helper()
		for range n {
			if r := h.do(t, "GET", "/readyz", nil, nil); r.status != want {
				t.Fatalf("readyz: %d, want %d", r.status, want)
			}
		}
	}
	rd.set(false)
	probe(5, 503)
	rd.set(true)
	probe(3, 200)
	rd.set(false)
	probe(4, 503)
	counts := map[string]int{}
	mu.Lock()
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		msg, _ := rec["msg"].(string)
		lvl, _ := rec["level"].(string)
		if msg == "request" {
			msg += " " + strings.TrimPrefix(rec["route"].(string), "GET ")
		}
		counts[lvl+" "+strings.SplitN(msg, ":", 2)[0]]++
	}
	mu.Unlock()
	want := map[string]int{"WARN not ready": 2, "INFO ready": 1, "DEBUG request /readyz": 9, "INFO request /readyz": 3}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%q logged %d times, want %d (all: %v)", k, counts[k], v, counts)
		}
	}
	for k := range counts {
		if strings.HasPrefix(k, "ERROR") {
			t.Errorf("readiness logged at ERROR: %v", counts)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestTokenListNeverDropsSilently: every member of a curated list is
// either a token of its export or listed in x-omitted with the reason; a
// list with no exportable member is 404 empty_tokenlist (the schema needs
// one token), an empty community list too.
func TestTokenListNeverDropsSilently(t *testing.T) {
	h, _ := exportHarness(t)
	outcomes := map[int]int{}
	for _, slug := range []string{"all", "majors", "lsts", "currencies", "rwas", "etfs", "metals", "stocks"} {
		rl, err := h.srv.d.ListReader.Read(slug)
		if err != nil {
			continue
		}
		r := h.get(t, "/v2/lists/"+slug+"/tokenlist.json")
		outcomes[r.status]++
		var omitted []map[string]any
		switch r.status {
		case 200:
			var doc struct {
				Tokens  []map[string]any `json:"tokens"`
				Omitted []map[string]any `json:"x-omitted"`
			}
			if err := json.Unmarshal([]byte(r.raw), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Tokens)+len(doc.Omitted) != len(rl.Tokens) {
				t.Errorf("%s: %d tokens + %d omitted != %d members", slug, len(doc.Tokens), len(doc.Omitted), len(rl.Tokens))
			}
			omitted = doc.Omitted
		case 404:
			d, _ := r.body["error"].(map[string]any)["details"].(map[string]any)
			if errTag(r) != "NotFoundError" || errCode(r) != "empty_tokenlist" || d["members"] != float64(len(rl.Tokens)) {
				t.Errorf("%s: %s", slug, r.raw)
			}
			for _, o := range d["x-omitted"].([]any) {
				omitted = append(omitted, o.(map[string]any))
			}
			if len(omitted) != len(rl.Tokens) {
				t.Errorf("%s: empty export names %d of %d members", slug, len(omitted), len(rl.Tokens))
			}
		default:
			t.Errorf("%s: %d %s", slug, r.status, r.raw)
		}
		for _, o := range omitted {
			if o["address"] == "" || o["reason"] != "decimals_unknown" {
				t.Errorf("%s: omitted member %v", slug, o)
			}
		}
	}
	if outcomes[200] == 0 {
		t.Errorf("no curated list exported: %v", outcomes)
	}
	if r := h.send(t, "POST", "/v2/lists", h.plain["read"], `{"slug":"empty-one","name":"Empty","status":"published"}`); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	r := h.get(t, "/v2/lists/empty-one/tokenlist.json")
	if r.status != 404 || errCode(r) != "empty_tokenlist" || !strings.Contains(r.raw, "requires at least one token") {
		t.Fatalf("empty list export: %d %s", r.status, r.raw)
	}
}
