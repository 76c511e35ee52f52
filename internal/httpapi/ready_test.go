package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/readiness"
)

type fixedReadiness readiness.Report

func (f fixedReadiness) Check(context.Context) readiness.Report { return readiness.Report(f) }

// TestReadyz: /readyz answers 503 with the report until ready, then 200;
// /v1/health stays 200 (liveness) either way.
func TestReadyz(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rep    readiness.Report
		status int
	}{
		{"offline: nothing priced", readiness.Report{Store: readiness.StoreCheck{OK: true}, Registry: readiness.RegistryCheck{OK: true, Assets: 95},
			Markets: readiness.MarketCheck{Configured: true, MinCoverage: 0.5, Coverage: map[string]float64{"any": 0, "marketdata_b": 0}}}, 503},
		{"ready", readiness.Report{Ready: true, Store: readiness.StoreCheck{OK: true}, Registry: readiness.RegistryCheck{OK: true, Assets: 95},
			Markets: readiness.MarketCheck{OK: true, Configured: true, MinCoverage: 0.5, Coverage: map[string]float64{"any": 0.9}}}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, ratelimit.Policy{})
			h.srv.d.Readiness = fixedReadiness(tc.rep)
			h.h = h.srv.build(nil)
			r := h.do(t, "GET", "/readyz", nil, nil)
			if r.status != tc.status || r.header.Get("Cache-Control") != noStore || r.body["ready"] != (tc.status == 200) {
				t.Fatalf("readyz: %d %v %s", r.status, r.header, r.raw)
			}
			if m, _ := r.body["markets"].(map[string]any); m == nil || m["coverage"].(map[string]any)["any"] != tc.rep.Markets.Coverage["any"] {
				t.Fatalf("readyz body lacks the coverage: %s", r.raw)
			}
			if r := h.do(t, "GET", "/v1/health", nil, nil); r.status != 200 || r.body["ok"] != true {
				t.Fatalf("health while not ready: %d %s", r.status, r.raw)
			}
		})
	}
}

// TestSimulatedHeader: a demo server marks every response, errors
// included; a real one marks none.
func TestSimulatedHeader(t *testing.T) {
	for _, simulated := range []bool{true, false} {
		h := newHarness(t, ratelimit.Policy{})
		h.srv.d.Simulated = simulated
		h.h = h.srv.build(nil)
		for _, path := range []string{"/v1/health", "/v1/assets/resolve?ref=sol", "/nope"} {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			rec := h.serve(t, req)
			want := ""
			if simulated {
				want = "true"
			}
			if got := rec.Header().Get(SimulatedHeader); got != want {
				t.Errorf("simulated=%v %s (%d): %s = %q; want %q", simulated, path, rec.Code, SimulatedHeader, got, want)
			}
		}
	}
}
