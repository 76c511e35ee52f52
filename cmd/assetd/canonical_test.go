package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExtProviderWiring serves the vendor's own documentation examples
// (fixtures-coingecko-oas-examples.json) from a local server and checks
// that --extprovider feeds bitcoin's canonicalMarket, stats, profile,
// tickers and description.
func TestExtProviderWiring(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", "fixtures-coingecko-oas-examples.json"))
	if err != nil {
		t.Skipf("shared data not present (%v)", err)
	}
	var fx struct {
		Endpoints map[string]struct {
			Example json.RawMessage `json:"example"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	coin, tickers := fx.Endpoints["GET /coins/{id}"].Example, fx.Endpoints["GET /coins/{id}/tickers"].Example
	if coin == nil || tickers == nil {
		t.Fatal("fixture lacks the coin or tickers example")
	}
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/coins/bitcoin":
			w.Write(coin)
		case r.URL.Path == "/coins/bitcoin/tickers" && r.URL.Query().Get("page") == "1":
			w.Write(tickers)
		case strings.HasPrefix(r.URL.Path, "/coins/bitcoin/tickers"):
			w.Write([]byte(`{"name":"Bitcoin","tickers":[]}`))
		default:
			http.Error(w, `{"error":"coin not found"}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(upstream.Close)

	dir := t.TempDir()
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "ext", "--data-dir", dir))
	s := startServer(t, "--data-dir", dir, "--extprovider", "--extprovider-url", upstream.URL, "--extprovider-budget", "1000")
	hdr := map[string]string{"X-Api-Key": key}
	var btc map[string]any
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", s.logs)
		}
	})
	eventually(t, 5*time.Second, "bitcoin canonicalMarket from extprovider", func() bool {
		_, _, d := s.get(t, "/v1/assets/bitcoin", hdr)
		btc, _ = d["asset"].(map[string]any)
		cm, _ := btc["canonicalMarket"].(map[string]any)
		return cm["source"] == "extprovider"
	})
	// Figures of the vendor example: price 69840, market cap 1373296629498.
	cm := btc["canonicalMarket"].(map[string]any)
	if cm["coinId"] != "bitcoin" || cm["price"] != 69840.0 || cm["marketCap"] != 1373296629498.0 {
		t.Errorf("canonicalMarket: %v", cm)
	}
	if st, _ := btc["stats"].(map[string]any); st["marketCap"] != 1373296629498.0 {
		t.Errorf("stats.marketCap %v; want the provider's", st["marketCap"])
	}
	_, _, prof := s.get(t, "/v1/assets/bitcoin/profile", hdr)
	p, _ := prof["profile"].(map[string]any)
	data, _ := p["data"].(map[string]any)
	if p["ok"] != true || data["allTimeHigh"] != 73738.0 || data["name"] != "Bitcoin" {
		t.Errorf("profile: %v", prof)
	}
	var rows []any
	eventually(t, 5*time.Second, "tickers cached", func() bool {
		_, _, tk := s.get(t, "/v1/assets/bitcoin/tickers", hdr)
		rows, _ = tk["tickers"].(map[string]any)["rows"].([]any)
		return len(rows) > 0
	})
	if r := rows[0].(map[string]any); r["market"].(map[string]any)["name"] != "Binance" || r["volume24hUsd"] != 1059536991.0 {
		t.Errorf("first ticker: %v", r)
	}
	_, _, desc := s.get(t, "/v1/assets/bitcoin/description", hdr)
	if d, _ := desc["description"].(map[string]any); d == nil || !strings.HasPrefix(d["summary"].(string), "Bitcoin is the first successful internet money") {
		t.Errorf("description: %v", desc)
	}
	// An id the provider does not list: not_found, never an error.
	_, _, eth := s.get(t, "/v1/assets/ethereum?include=profile", hdr)
	if b := eth["includes"].(map[string]any)["profile"].(map[string]any); b["ok"] != false || b["reason"] != "not_found" {
		t.Errorf("unlisted coin profile: %v", b)
	}
}
