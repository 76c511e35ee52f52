package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
)

// BenchmarkNewsFeed serves the feed through the full middleware stack from
// a snapshot of 14 days of synthetic items (4,000 articles, 2,000 posts)
// while one source hangs forever, and reports the 99th percentile of the
// handler time per request (p99-ns).
func BenchmarkNewsFeed(b *testing.B) {
	seed, err := registry.Seed()
	if err != nil {
		b.Fatal(err)
	}
	words := []string{"Bitcoin", "Solana", "$SOL", "ETF", "markets", "Jupiter", "$BONK", "regulation", "validators", "stablecoin"}
	mk := func(fs string, n int) []news.Item {
		out := make([]news.Item, n)
		for i := range out {
			out[i] = news.Item{Title: fmt.Sprintf("Synthetic %s story %d about %s and %s", fs, i, words[i%len(words)], words[(i/7)%len(words)]),
				URL: fmt.Sprintf("https://%s.example.test/%d", fs, i), Summary: "A synthetic summary of the story for the benchmark, with some words.",
				PostedAt: newsT0.Add(-time.Duration(i) * 5 * time.Minute), SourceName: "Synthetic " + fs, Author: "bench"}
		}
		return out
	}
	hang := &hangingSource{entered: make(chan struct{}), release: make(chan struct{})}
	svc := news.New(news.Config{Sources: []news.Source{
		staticSource{"https://news.example.test/rss", news.FeedNews, mk("news", 4000)},
		staticSource{"https://social.example.test/rss", news.FeedSocial, mk("social", 2000)},
		hang,
	}, Assets: seed.Assets, Now: func() time.Time { return newsT0 }, After: func(time.Duration) <-chan time.Time { return nil }})
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); close(hang.release) }()
	go svc.Run(ctx)
	for deadline := time.Now().Add(time.Minute); ; {
		if n, s, _ := svc.Snapshot().Counts(); n == 4000 && s == 2000 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("snapshot not built")
		}
		time.Sleep(10 * time.Millisecond)
	}
	<-hang.entered

	plain, hash, _ := apikey.Generate()
	idx, _ := apikey.NewIndex([]apikey.Key{{ID: "key_b", ProjectID: "prj_b", Hash: hash, Scopes: []string{apikey.ScopeAssetsRead}}})
	s := New(Deps{Log: slog.New(slog.DiscardHandler), Metrics: metrics.New(), Keys: idx, Limiter: ratelimit.NewMemory(), Usage: nopUsage{},
		News: svc, DefaultPolicy: ratelimit.Policy{Requests: 1 << 30, Window: 10 * time.Second, QuotaPerMonth: 1 << 40}})
	for _, q := range []string{"", "?limit=50", "?coin_id=solana&symbol=SOL&name=Solana", "?terms=regulation,etf&source=news", "?coin_id=unknown-coin&symbol=BONK"} {
		b.Run("q="+q, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/v1/news/feed"+q, nil)
			req.Header.Set("X-Api-Key", plain)
			w := &discardWriter{h: http.Header{}}
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				t := time.Now()
				s.ServeHTTP(w, req)
				lat = append(lat, time.Since(t))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
