package contracttest

import (
	"net/http"
	"net/http/httptest"
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
	for _, c := range []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		wantErr            string // "" when the response conforms
	}{
		{"health", "GET", "/v1/health", 200, ok, `{"ok":true}`, ""},
		{"health with simulated", "GET", "/v1/health", 200, ok, `{"ok":true,"simulated":true}`, ""},
		{"health wrong type", "GET", "/v1/health", 200, ok, `{"ok":"yes"}`, "ok"},
		{"health missing field", "GET", "/v1/health", 200, ok, `{}`, "ok"},
		{"no request id", "GET", "/v1/health", 200, http.Header{"Content-Type": {"application/json"}}, `{"ok":true}`, "x-request-id"},
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

func TestWarmCompilesEverySchema(t *testing.T) { Warm(t) }

func BenchmarkValidateHealth(b *testing.B) {
	req := httptest.NewRequest("GET", "/v1/health", nil)
	h := http.Header{"X-Request-Id": {"r1"}, "Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}
	body := []byte(`{"ok":true}`)
	for b.Loop() {
		if err := Validate(req, 200, h, body); err != nil {
			b.Fatal(err)
		}
	}
}
