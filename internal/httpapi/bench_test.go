package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/usage"
)

type nopUsage struct{}

func (nopUsage) Record(usage.Record) {}

// discardWriter is a ResponseWriter that keeps nothing, so the benchmark
// measures the server rather than httptest.ResponseRecorder.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkMiddlewareStack measures request id + key auth + scope check +
// limiter + usage record + metrics around a trivial handler.
func BenchmarkMiddlewareStack(b *testing.B) {
	for _, bc := range []struct {
		name string
		log  *slog.Logger
		rec  UsageRecorder
	}{
		{"no-access-log", slog.New(slog.DiscardHandler), nil},
		{"text-access-log", slog.New(slog.NewTextHandler(io.Discard, nil)), nil},
		{"usage-recorder", slog.New(slog.DiscardHandler), usage.NewRecorder(nopSink{}, slog.New(slog.DiscardHandler), usage.Options{})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			plain, hash, _ := apikey.Generate()
			idx, _ := apikey.NewIndex([]apikey.Key{{ID: "key_b", ProjectID: "prj_b", Hash: hash, Scopes: []string{apikey.ScopeAssetsRead}}})
			rec := bc.rec
			if rec == nil {
				rec = nopUsage{}
			}
			s := New(Deps{Log: bc.log, Metrics: metrics.New(), Keys: idx, Limiter: ratelimit.NewMemory(), Usage: rec,
				DefaultPolicy: ratelimit.Policy{Requests: 1 << 30, Window: 10 * time.Second, QuotaPerMonth: 1 << 40}})
			body := []byte(`{"ok":true}`)
			h := s.build([]route{{pattern: "GET /bench", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
				_, err := w.Write(body)
				return err
			}}})
			req := httptest.NewRequest("GET", "/bench", nil)
			req.Header.Set("X-Api-Key", plain)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

type nopSink struct{}

func (nopSink) AddUsage(context.Context, []usage.Aggregate) error { return nil }
func (nopSink) PruneUsage(context.Context, int64) (int64, error)  { return 0, nil }
