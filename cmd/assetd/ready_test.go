package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestReadinessTellsOfflineRealModeFromDemo: in real mode with the price
// provider unreachable, /v1/health says ok while /readyz answers 503 with
// zero coverage; the demo world becomes ready, and marks its responses.
func TestReadinessTellsOfflineRealModeFromDemo(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	real := startServer(t, "--data-dir", t.TempDir(), "--marketdata-b=true", "--marketdata-b-url", down.URL, "--startup-warmup", "0s")
	if st, hdr, body := real.get(t, "/v1/health", nil); st != 200 || body["ok"] != true || hdr.Get("X-Assetd-Simulated") != "" {
		t.Fatalf("real health: %d %v %v", st, hdr, body)
	}
	st, _, body := real.get(t, "/readyz", nil)
	markets, _ := body["markets"].(map[string]any)
	if st != 503 || body["ready"] != false || markets == nil || markets["ok"] != false {
		t.Fatalf("offline real mode /readyz: %d %v", st, body)
	}
	if cov := markets["coverage"].(map[string]any); cov["any"] != 0.0 || cov["marketdata_b"] != 0.0 {
		t.Fatalf("offline coverage: %v", cov)
	}
	if s, _ := body["store"].(map[string]any); s["ok"] != true {
		t.Fatalf("store check: %v", body)
	}
	if r, _ := body["registry"].(map[string]any); r["ok"] != true || r["assets"].(float64) < 1 {
		t.Fatalf("registry check: %v", body)
	}

	demo := startServer(t, "--data-dir", t.TempDir(), "--demo")
	eventually(t, 60*time.Second, "demo ready", func() bool { st, _, _ := demo.get(t, "/readyz", nil); return st == 200 })
	for _, path := range []string{"/v1/health", "/readyz", authedPath} {
		if _, hdr, _ := demo.get(t, path, nil); hdr.Get("X-Assetd-Simulated") != "true" {
			t.Errorf("demo %s: no X-Assetd-Simulated header", path)
		}
	}
}
