package main

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/metrics"
)

func TestAdminMux(t *testing.T) {
	m := metrics.New()
	m.Requests.WithLabelValues("GET /v1/health", "200").Inc()
	m.Limiter.WithLabelValues("rate").Inc()

	srv := httptest.NewServer(adminMux(m))
	defer srv.Close()
	b := scrape(t, srv)
	for _, want := range []string{`assetd_http_requests_total{code="200",route="GET /v1/health"} 1`,
		`assetd_ratelimit_decisions_total{decision="rate"} 1`, "assetd_http_in_flight_requests", "go_goroutines"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	resp, err := srv.Client().Get(srv.URL + "/debug/pprof/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("pprof index: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
}

// scrape reads the admin server's /metrics.
func scrape(t *testing.T, srv *httptest.Server) []byte {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type failingSnapshots struct{}

func (failingSnapshots) Source() string { return "marketdata_b" }
func (failingSnapshots) MaxBatch() int  { return 30 }
func (failingSnapshots) Snapshots(context.Context, []string) (map[string]market.Token, error) {
	return nil, market.ErrUpstream
}

type fixedDrops int64

func (d fixedDrops) Dropped() int64 { return int64(d) }

// TestEveryMetricIsDocumented touches every collector, scrapes /metrics and
// checks that docs/metrics.md lists each assetd_* family, and only those.
func TestEveryMetricIsDocumented(t *testing.T) {
	m := metrics.New()
	cache := marketcache.New(marketcache.Options{Snapshots: []market.SnapshotProvider{failingSnapshots{}}, Observer: m})
	registerOpsMetrics(m, cache, func() []string { return []string{"So11111111111111111111111111111111111111112"} }, fixedDrops(3))
	cache.Token("So11111111111111111111111111111111111111112")
	cache.Flush(context.Background())
	cache.Token("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v") // deferred: backing off
	cache.Flush(context.Background())
	m.Requests.WithLabelValues("GET /v1/health", "200").Inc()
	m.Latency.WithLabelValues("GET /v1/health").Observe(0.001)
	m.Limiter.WithLabelValues("allowed").Inc()
	m.AuthFails.WithLabelValues("missing").Inc()
	m.Includes.WithLabelValues("risk", "ok").Inc()
	m.Panics.Inc()
	m.Reload("keys", nil)
	m.ProviderNulled.WithLabelValues("marketdata_a", "price").Inc()
	m.TradesRejected.WithLabelValues("invalid_price").Inc()
	m.NewsFetches.WithLabelValues("newsprov", "ok").Inc()
	m.NewsDeduplicated.WithLabelValues("url").Inc()
	m.NewsItems.WithLabelValues("newsprov").Set(1)
	// One dust trade (below --dust-usd) gives the rejected-from-price
	// family a series.
	eng, err := analytics.New(analytics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if res := eng.Ingest([]analytics.Trade{{Signature: "metrics-doc-dust", Slot: 1, BlockTime: time.Now().Unix(),
		Mint: "So11111111111111111111111111111111111111112", Side: analytics.SideBuy, TokenAmount: 0.0001, USDAmount: 0.01, PriceUSD: 100,
		Wallet: "11111111111111111111111111111111", Venue: "test"}}); res.Accepted != 1 {
		t.Fatalf("dust trade: %+v", res)
	}
	registerAdmissionMetrics(m, eng)
	evLog := events.NewMemory(8, nil)
	registerEventMetrics(m, evLog, events.NewHub(evLog, events.HubOptions{}))(events.Event{Type: events.TypePrice})
	registerTradeSourceMetrics(m, func() chainsource.Status {
		st := chainsource.Off()
		st.Programs = []chainsource.ProgramCount{{Program: "synthetic-program", Decoded: 2, Stable: 1}}
		st.Websocket = chainsource.WebsocketConnected // --solana-ws-url's gauge is exported only with it
		return st
	})
	metrics.NewWebhooks(m.Registry).WebhookExpired()

	srv := httptest.NewServer(adminMux(m))
	defer srv.Close()
	b := scrape(t, srv)
	for _, want := range []string{`assetd_provider_calls_total{outcome="error",source="marketdata_b"} 1`,
		`assetd_provider_deferred_total{reason="backoff",source="marketdata_b"} 1`, `assetd_provider_up{source="marketdata_b"} 0`,
		`assetd_cache_reads_total{cache="snapshots",outcome="miss"} 2`, `assetd_market_coverage_ratio{source="any"} 0`,
		`assetd_usage_dropped_total 3`, `assetd_reloads_total{outcome="ok",topic="keys"} 1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	scraped := map[string]bool{}
	for _, name := range regexp.MustCompile(`(?m)^# TYPE (assetd_\w+)`).FindAllStringSubmatch(string(b), -1) {
		scraped[name[1]] = true
	}
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, name := range regexp.MustCompile("`(assetd_\\w+)`").FindAllStringSubmatch(string(doc), -1) {
		documented[name[1]] = true
	}
	for name := range scraped {
		if !documented[name] {
			t.Errorf("%s is not in docs/metrics.md", name)
		}
	}
	for name := range documented {
		if !scraped[name] {
			t.Errorf("docs/metrics.md lists %s, which /metrics does not export", name)
		}
	}
}
