package httpapi

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/ratelimit"
)

func TestCORS(t *testing.T) {
	const allowed, other = "https://wallet.example", "https://evil.example"
	h := newHarness(t, ratelimit.Policy{})
	h.srv.d.CORSOrigins = []string{allowed + "/", " https://b.example"}
	h.h = h.srv.build(nil)

	pre := h.do(t, "OPTIONS", "/v1/assets/curated", map[string]string{"Origin": allowed,
		"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-api-key"}, nil)
	if pre.status != 204 || pre.raw != "" || pre.header.Get("Access-Control-Allow-Origin") != allowed ||
		!strings.Contains(pre.header.Get("Access-Control-Allow-Headers"), "X-Api-Key") ||
		!strings.Contains(pre.header.Get("Access-Control-Allow-Methods"), "GET") || pre.header.Get("Access-Control-Max-Age") == "" ||
		pre.header.Get("Vary") != "Origin" {
		t.Fatalf("allowed preflight: %d %v %q", pre.status, pre.header, pre.raw)
	}
	denied := h.do(t, "OPTIONS", "/v1/assets/curated", map[string]string{"Origin": other, "Access-Control-Request-Method": "GET"}, nil)
	if denied.status == 204 || hasCORS(denied) {
		t.Fatalf("other origin's preflight: %d %v", denied.status, denied.header)
	}
	get := h.do(t, "GET", "/v1/health", map[string]string{"Origin": allowed}, nil)
	if get.status != 200 || get.header.Get("Access-Control-Allow-Origin") != allowed ||
		!strings.Contains(get.header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Fatalf("allowed GET: %d %v", get.status, get.header)
	}
	if r := h.do(t, "GET", "/v1/health", map[string]string{"Origin": other}, nil); hasCORS(r) {
		t.Fatalf("other origin's GET has CORS headers: %v", r.header)
	}

	// Off by default: no headers, preflights are not routes.
	off := newHarness(t, ratelimit.Policy{})
	r := off.do(t, "OPTIONS", "/v1/assets/curated", map[string]string{"Origin": allowed, "Access-Control-Request-Method": "GET"}, nil)
	if r.status != 405 || hasCORS(r) {
		t.Fatalf("CORS off: %d %v", r.status, r.header)
	}
}

func hasCORS(r resp) bool {
	for k := range r.header {
		if strings.HasPrefix(k, "Access-Control-") {
			return true
		}
	}
	return false
}

func TestAccessLogModes(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		sample uint64
		want   int // lines for 10 ok requests, one 404 and one slow request
	}{
		{AccessLogAll, 0, 12},
		{AccessLogOff, 0, 0},
		{AccessLogSampled, 5, 2 + 2}, // the 404, the slow one, requests 1 and 6 of the 10
	} {
		t.Run(tc.mode, func(t *testing.T) {
			var buf bytes.Buffer
			h := newHarness(t, ratelimit.Policy{})
			h.srv.d.Log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			h.srv.d.AccessLog, h.srv.d.AccessLogSlow = tc.mode, time.Hour
			if tc.sample > 0 {
				h.srv.d.AccessLogSample = tc.sample
			}
			h.h = h.srv.build(nil)
			for range 10 {
				h.do(t, "GET", "/v1/health", nil, nil)
			}
			h.do(t, "GET", "/nope", nil, nil)
			h.srv.d.AccessLogSlow = time.Nanosecond
			h.do(t, "GET", "/v1/health", nil, nil)
			if got := strings.Count(buf.String(), "msg=request "); got != tc.want {
				t.Fatalf("%d access lines, want %d:\n%s", got, tc.want, buf.String())
			}
		})
	}
}
