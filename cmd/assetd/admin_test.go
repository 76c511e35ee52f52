package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/metrics"
)

func TestAdminMux(t *testing.T) {
	m := metrics.New()
	m.Requests.WithLabelValues("GET /v1/health", "200").Inc()
	m.Limiter.WithLabelValues("rate").Inc()
	srv := httptest.NewServer(adminMux(m))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`assetd_http_requests_total{code="200",route="GET /v1/health"} 1`,
		`assetd_ratelimit_decisions_total{decision="rate"} 1`, "assetd_http_in_flight_requests", "go_goroutines"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	resp, err = srv.Client().Get(srv.URL + "/debug/pprof/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("pprof index: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
}
