package contracttest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := http.Header{"X-Request-Id": {"r1"}, "Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}
	errHdr := func(extra ...string) http.Header {
		h := ok.Clone()
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	rate := []string{"RateLimit-Limit", "10", "RateLimit-Remaining", "9", "RateLimit-Reset", "5"}
	notMod := http.Header{"X-Request-Id": {"r1"}, "Etag": {`"0123456789abcdef"`}, "Cache-Control": {"public, max-age=5"}}
	preflight := http.Header{"X-Request-Id": {"r1"}, "Access-Control-Allow-Origin": {"https://app.example"}, "Vary": {"Origin"},
		"Access-Control-Allow-Methods": {"GET, POST, PUT, PATCH, DELETE, OPTIONS"},
		"Access-Control-Allow-Headers": {"X-Api-Key, Content-Type, If-None-Match, X-Request-Id, Authorization"},
		"Access-Control-Max-Age":       {"600"}, "Cache-Control": {"no-store"}}
	for _, c := range []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		wantErr            string // "" when the response conforms
	}{
		{"health", "GET", "/v1/health", 200, ok, `{"ok":true,"version":"v1"}`, ""},
		{"health with simulated", "GET", "/v1/health", 200, ok, `{"ok":true,"simulated":true,"version":"v1"}`, ""},
		{"health wrong type", "GET", "/v1/health", 200, ok, `{"ok":"yes","version":"v1"}`, "ok"},
		{"health missing field", "GET", "/v1/health", 200, ok, `{}`, "ok"},
		{"no request id", "GET", "/v1/health", 200, http.Header{"Content-Type": {"application/json"}}, `{"ok":true,"version":"v1"}`, "x-request-id"},
		{"unknown route 404", "GET", "/v1/nope", 404, ok, `{"error":{"_tag":"NotFoundError","message":"not found"}}`, ""},
		{"unknown route 200", "GET", "/v1/nope", 200, ok, `{}`, "does not describe"},
		{"fixture route", "GET", "/test/read", 200, ok, `{"ok":true}`, ""},
		{"405 envelope", "DELETE", "/v1/health", 405, ok, `{"error":{"_tag":"BadRequestError","message":"m","details":{"code":"method_not_allowed"}}}`, ""},
		{"unknown tag", "GET", "/v1/assets/search", 400, ok, `{"error":{"_tag":"Oops","message":"m"}}`, "_tag"},
		{"unknown code", "GET", "/v1/assets/search", 400, ok, `{"error":{"_tag":"BadRequestError","message":"m","details":{"code":"made_up"}}}`, "code"},
		{"string details", "GET", "/v1/assets/search", 400, ok, `{"error":{"_tag":"BadRequestError","message":"m","details":"why"}}`, ""},
		{"error cacheable", "GET", "/v1/assets/search", 400, errHdr("Cache-Control", "private"), `{"error":{"_tag":"BadRequestError","message":"m"}}`, "Cache-Control"},
		{"429 without Retry-After", "GET", "/v1/assets/search", 429, ok, `{"error":{"_tag":"RateLimitedError","message":"m","details":{"code":"rate_limited"}}}`, "Retry-After"},
		{"429 with Retry-After", "GET", "/v1/assets/search", 429, errHdr("Retry-After", "3"), `{"error":{"_tag":"RateLimitedError","message":"m","details":{"code":"rate_limited"}}}`, ""},
		{"429 Retry-After not a number", "GET", "/v1/assets/search", 429, errHdr("Retry-After", "soon"), `{"error":{"_tag":"RateLimitedError","message":"m","details":{"code":"rate_limited"}}}`, "Retry-After"},

		// 304s: only where the contract gives the operation one (the
		// conditional GETs), with its ETag and a cacheable Cache-Control.
		{"304", "GET", "/v1/assets/search?q=sol", 304, notMod, ``, ""},
		{"304 with rate headers", "GET", "/v2/lists/x", 304, with(notMod, rate...), ``, ""},
		{"304 without ETag", "GET", "/v1/assets/search?q=sol", 304, without(notMod, "ETag"), ``, "ETag"},
		{"304 weak ETag", "GET", "/v1/assets/search?q=sol", 304, with(notMod, "ETag", `W/"x"`), ``, "ETag"},
		{"304 no-store", "GET", "/v1/assets/search?q=sol", 304, with(notMod, "Cache-Control", "no-store"), ``, "Cache-Control"},
		{"304 with a body", "GET", "/v1/assets/search?q=sol", 304, notMod, `{}`, "body"},
		{"304 of a no-store route", "GET", "/v1/assets/risk-summary?mint=x", 304, notMod, ``, "no 304"},
		{"304 of a POST", "POST", "/v1/assets/market-snapshots", 304, notMod, ``, "no 304"},

		// CORS preflight (any path) against components/responses/Preflight.
		{"preflight", "OPTIONS", "/v1/assets/search", 204, preflight, ``, ""},
		{"preflight of an unknown path", "OPTIONS", "/v1/nope", 204, preflight, ``, ""},
		{"preflight without Max-Age", "OPTIONS", "/v1/assets/search", 204, without(preflight, "Access-Control-Max-Age"), ``, "Max-Age"},
		{"preflight bad Max-Age", "OPTIONS", "/v1/assets/search", 204, with(preflight, "Access-Control-Max-Age", "long"), ``, "Max-Age"},
		{"preflight without origin", "OPTIONS", "/v1/assets/search", 204, without(preflight, "Access-Control-Allow-Origin"), ``, "Allow-Origin"},
		{"preflight without x-api-key allowed", "OPTIONS", "/v1/assets/search", 204, with(preflight, "Access-Control-Allow-Headers", "Content-Type"), ``, "Allow-Headers"},
		{"preflight with a body", "OPTIONS", "/v1/assets/search", 204, preflight, `{}`, "body"},

		// The limiter's headers only where the contract declares them, the
		// RateLimit-* trio together, with their schemas.
		{"400 with rate headers", "GET", "/v1/assets/search", 400, with(ok, rate...), `{"error":{"_tag":"BadRequestError","message":"m"}}`, ""},
		{"404 with rate headers", "GET", "/v1/assets/sol", 404, with(ok, rate...), `{"error":{"_tag":"NotFoundError","message":"m"}}`, ""},
		{"403 with rate headers", "GET", "/v2/execution/route?mint=x", 403, with(ok, rate...), `{"error":{"_tag":"AssetAdvisoryError","message":"m","details":{"code":"advisory_blocked"}}}`, ""},
		{"401 with rate headers", "GET", "/v1/assets/search", 401, with(with(ok, rate...), "WWW-Authenticate", `ApiKey header="x-api-key"`), `{"error":{"_tag":"UnauthorizedError","message":"m"}}`, "does not declare"},
		{"health with rate headers", "GET", "/v1/health", 200, with(ok, rate...), `{"ok":true,"version":"v1"}`, "does not declare"},
		{"400 with Retry-After", "GET", "/v1/assets/search", 400, with(ok, "Retry-After", "1"), `{"error":{"_tag":"BadRequestError","message":"m"}}`, "does not declare"},
		{"part of the trio", "GET", "/v1/assets/search", 400, with(ok, "RateLimit-Limit", "10"), `{"error":{"_tag":"BadRequestError","message":"m"}}`, "come together"},
		{"RateLimit-Remaining not a number", "GET", "/v1/assets/search", 400, with(ok, "RateLimit-Limit", "10", "RateLimit-Remaining", "many", "RateLimit-Reset", "1"), `{"error":{"_tag":"BadRequestError","message":"m"}}`, "RateLimit-Remaining"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, nil)
			err := Validate(req, c.status, c.header, []byte(c.body))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("unexpected: %v", err)
			case c.wantErr != "" && err == nil:
				t.Fatalf("accepted, want an error mentioning %q", c.wantErr)
			case c.wantErr != "" && !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(c.wantErr)):
				t.Fatalf("error %v, want it to mention %q", err, c.wantErr)
			}
		})
	}
}

// with returns h with the name/value pairs set.
func with(h http.Header, kv ...string) http.Header {
	h = h.Clone()
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// without returns h without the named headers.
func without(h http.Header, names ...string) http.Header {
	h = h.Clone()
	for _, n := range names {
		h.Del(n)
	}
	return h
}

func TestWarmCompilesEverySchema(t *testing.T) { Warm(t) }

func BenchmarkValidateHealth(b *testing.B) {
	req := httptest.NewRequest("GET", "/v1/health", nil)
	h := http.Header{"X-Request-Id": {"r1"}, "Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}
	body := []byte(`{"ok":true,"version":"v1"}`)
	for b.Loop() {
		if err := Validate(req, 200, h, body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTally: the tally counts every response, keeps the broken ones, and
// reports as uncovered every operation without a conforming answer (a
// success, or a status the operation describes with its own body; an
// error envelope covers nothing).
func TestTally(t *testing.T) {
	ops, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GET /v1/health", "GET /readyz", "GET /v1/assets/{assetId}", "PUT /v2/lists/{slug}/members/{mint}"} {
		if !slices.Contains(ops, want) {
			t.Fatalf("Operations() lacks %q: %v", want, ops)
		}
	}
	ok := http.Header{"X-Request-Id": {"r1"}, "Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}
	tally := NewTally()
	record := func(method, path string, status int, body string) error {
		return tally.Record(httptest.NewRequest(method, path, nil), status, ok, []byte(body))
	}
	if err := record("GET", "/v1/health", 200, `{"ok":true,"version":"v1"}`); err != nil {
		t.Fatalf("conforming health: %v", err)
	}
	if err := record("GET", "/v1/health", 200, `{"ok":"yes"}`); err == nil {
		t.Fatal("broken health accepted")
	}
	// /readyz describes its 503 with the readiness report: it answers.
	if err := record("GET", "/readyz", 503, `{"ready":false}`); err != nil {
		t.Fatalf("readyz 503: %v", err)
	}
	// An error envelope is conforming but covers nothing.
	if err := record("GET", "/v1/assets/sol", 404, `{"error":{"_tag":"NotFoundError","message":"m"}}`); err != nil {
		t.Fatalf("404 envelope: %v", err)
	}
	if got := tally.Checked(); got != 4 {
		t.Errorf("Checked() = %d, want 4", got)
	}
	if f := tally.Failures(); len(f) != 1 || f[0].Operation != "GET /v1/health" || f[0].Status != 200 {
		t.Errorf("Failures() = %v, want the broken health", f)
	}
	unc, err := tally.Uncovered()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(unc, "GET /v1/health") || !slices.Contains(unc, "GET /v1/assets/{assetId}") || len(unc) < len(ops)-2 {
		t.Errorf("Uncovered() = %v", unc)
	}
	if slices.Contains(unc, "GET /readyz") {
		t.Error("readyz's described 503 does not cover it")
	}
	if !answered("GET /readyz", 503) || answered("GET /v1/assets/{assetId}", 404) || !answered("GET /v1/assets/{assetId}", 200) {
		t.Error("answered: /readyz 503 answers, an asset 404 does not, a 200 does")
	}
}
