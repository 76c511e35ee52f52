package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/ratelimit"
)

// Benchmarks of the asset read endpoints, in process through the full
// handler stack (request id, key auth, scope, limiter, usage, metrics,
// handler, JSON encoding) over the seed registry with a market for every
// seed mint. Targets: asset detail <= 20 us/op, search <= 100 us/op.

// benchAssets runs each path as a sub-benchmark.
func benchAssets(b *testing.B, paths []struct{ name, path string }, opts ...func(*Deps)) {
	cat := newSeedCatalog(b, false)
	plain, hash, _ := apikey.Generate()
	idx, _ := apikey.NewIndex([]apikey.Key{{ID: "key_b", ProjectID: "prj_b", Hash: hash, Scopes: []string{apikey.ScopeAssetsRead}}})
	d := Deps{Log: slog.New(slog.DiscardHandler), Metrics: metrics.New(), Keys: idx, Limiter: ratelimit.NewMemory(), Usage: nopUsage{},
		Catalog: cat, Now: func() time.Time { return fxNow },
		DefaultPolicy: ratelimit.Policy{Requests: 1 << 30, Window: 10 * time.Second, QuotaPerMonth: 1 << 40}}
	for _, o := range opts {
		o(&d)
	}
	s := New(d)
	h := s.Handler()
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", p.path, nil)
			req.Header.Set("X-Api-Key", plain)
			// One checked request first: a benchmark of an error is no benchmark.
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", p.path, rec.Code, rec.Body)
			}
			b.SetBytes(int64(rec.Body.Len()))
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

const (
	benchMintUSDC  = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	benchMintTSLAx = "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB"
	benchMintNone  = "113er4GLruBrK7XoerB2YLe3SkaLc9KbFdGPrkFpump" // listed by no seed asset
)

func BenchmarkAssetResolve(b *testing.B) {
	benchAssets(b, []struct{ name, path string }{
		{"slug", "/v1/assets/resolve?ref=solana"},
		{"alias", "/v1/assets/resolve?ref=USDC"},
		{"mint", "/v1/assets/resolve?mint=" + benchMintUSDC},
		{"singleton", "/v1/assets/resolve?ref=" + benchMintNone},
	})
}

func BenchmarkAssetDetail(b *testing.B) {
	benchAssets(b, []struct{ name, path string }{
		{"solana", "/v1/assets/solana"},
		{"solana-all", "/v1/assets/solana?variantsMode=all"},
		{"usd", "/v1/assets/usd"},
		{"tesla", "/v1/assets/tesla"},
		{"tesla-by-mint", "/v1/assets/" + benchMintTSLAx + "?primaryVariantStrategy=stock_redeemability"},
		{"singleton", "/v1/assets/" + benchMintNone},
	})
}

func BenchmarkAssetVariants(b *testing.B) {
	benchAssets(b, []struct{ name, path string }{
		{"solana", "/v1/assets/solana/variants"},
		{"usd-execution", "/v1/assets/usd/variants?sortBy=execution_quality"},
	})
}

func BenchmarkAssetSearch(b *testing.B) {
	benchAssets(b, []struct{ name, path string }{
		{"sol", "/v1/assets/search?q=sol"},
		{"usd", "/v1/assets/search?q=usd"},
		{"usd-variants", "/v1/assets/search?q=usd&variants=all"},
		{"mint", "/v1/assets/search?q=" + benchMintUSDC},
	})
}

func BenchmarkAssetCurated(b *testing.B) {
	benchAssets(b, []struct{ name, path string }{
		{"all", "/v1/assets/curated?list=all"},
		{"all-page", "/v1/assets/curated?list=all&limit=20"},
		{"stocks-mint", "/v1/assets/curated?list=stocks&groupBy=mint"},
		{"all-variants", "/v1/assets/curated?list=all&variants=all"},
	})
}

// BenchmarkAssetDetailIncludes: asset detail with include blocks and the
// risk endpoints, over synthetic seed markets and canonical data.
func BenchmarkAssetDetailIncludes(b *testing.B) {
	snap, err := seedSnapshot()
	if err != nil {
		b.Fatal(err)
	}
	btc, _ := snap.Asset("bitcoin")
	wire := func(d *Deps) {
		d.Markets = fakeMarketData{m: seedMarkets(snap, false), poolMint: btc.Variants[0].Mint, now: fxNow}
		d.Canonical = fakeCanonical{now: fxNow}
		d.ExternalProvider = true
	}
	benchAssets(b, []struct{ name, path string }{
		{"bitcoin-none", "/v1/assets/bitcoin"},
		{"bitcoin-risk", "/v1/assets/bitcoin?include=risk"},
		{"bitcoin-markets", "/v1/assets/bitcoin?include=markets"},
		{"bitcoin-all4", "/v1/assets/bitcoin?include=profile,risk,ohlcv,markets"},
		{"tesla-ohlcv-stock", "/v1/assets/tesla?include=ohlcv"},
		{"risk-summary-mint", "/v1/assets/risk-summary?mint=" + benchMintUSDC},
		{"risk-details", "/v1/assets/usd/risk-details"},
		{"profile", "/v1/assets/bitcoin/profile"},
		{"tickers", "/v1/assets/bitcoin/tickers"},
	}, wire)
}
