package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/storage"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// fakeIngester records batches and answers with res or err.
type fakeIngester struct {
	got [][]analytics.Trade
	res analytics.IngestResult
	err error
}

func (f *fakeIngester) Ingest(_ context.Context, trades []analytics.Trade) (analytics.IngestResult, error) {
	f.got = append(f.got, trades)
	return f.res, f.err
}

// With Deps.Trades the parsed trades go to the durable ingester, whose
// counts answer; a store failure acknowledges nothing.
func TestIngestTradesDurable(t *testing.T) {
	h, eng, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	before := eng.Windows(mint, h.now).Trade24h
	fake := &fakeIngester{res: analytics.IngestResult{Accepted: 1, Duplicates: 1, Rejected: 1, Reasons: map[string]int{"future_block_time": 1}}}
	h.srv.d.Trades = fake
	ev := func(sig string) string {
		return fmt.Sprintf(`{"signature":%q,"slot":5,"blockTime":%d,"mint":%q,"side":"sell","tokenAmount":1,"usdAmount":6,"priceUsd":6,"wallet":%q,"venue":"orca"}`,
			sig, h.now.Unix()-30, mint, syntheticMints(1)[0])
	}
	body := strings.Join([]string{ev("d1"), ev("d2"), ev("d3"), "{bad"}, "\n")
	r := h.ingest(t, "trades", "application/x-ndjson", body)
	if r.status != 200 || !strings.Contains(r.raw, `"accepted":1,"duplicates":1,"rejected":2,"reasons":{"future_block_time":1,"malformed_json":1}`) {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if len(fake.got) != 1 || len(fake.got[0]) != 3 || fake.got[0][2].Signature != "d3" {
		t.Fatalf("ingester got %+v", fake.got)
	}
	if got := eng.Windows(mint, h.now).Trade24h; got != before {
		t.Fatalf("engine changed outside the ingester: %d -> %d trades", before, got)
	}
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(h.srv.d.Metrics.Registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `assetd_trades_rejected_total{reason="malformed_json"} 1`) {
		t.Fatalf("malformed_json rejection not counted:\n%s", rec.Body.String())
	}

	fake.err = errors.New("disk full")
	r = h.ingest(t, "trades", "application/x-ndjson", ev("d4"))
	if r.status != 500 || !strings.Contains(r.raw, `"_tag":"InternalServerError"`) || strings.Contains(r.raw, "accepted") || strings.Contains(r.raw, "disk full") {
		t.Fatalf("store failure: %d %s", r.status, r.raw)
	}
}

type unavailableErr struct{}

func (unavailableErr) Error() string     { return "nats: no servers available" }
func (unavailableErr) Unavailable() bool { return true }

// An ingester error saying the durable path is unreachable (the NATS trade
// stream) is 503 trade_stream_unavailable, acknowledging nothing.
func TestIngestTradesStreamUnavailable(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	h.srv.d.Trades = &fakeIngester{err: fmt.Errorf("publish: %w", unavailableErr{})}
	ev := fmt.Sprintf(`{"signature":"u1","slot":5,"blockTime":%d,"mint":%q,"side":"sell","tokenAmount":1,"usdAmount":6,"priceUsd":6,"wallet":%q,"venue":"orca"}`,
		h.now.Unix()-30, crypto.Variants[0].Mint, syntheticMints(1)[0])
	r := h.ingest(t, "trades", "application/x-ndjson", ev)
	if r.status != 503 || errCode(r) != "trade_stream_unavailable" || strings.Contains(r.raw, "accepted") || strings.Contains(r.raw, "no servers") {
		t.Fatalf("stream unavailable: %d %s", r.status, r.raw)
	}
}

// A store with no space left (storage.ErrFull, however the handler wraps
// it) answers 503 store_unavailable, acknowledging nothing, and is not
// logged at error level per request: the store logs the state change once
// (storage.FullWatch), so a full disk under load does not flood the log.
func TestStoreFullIs503AndQuiet(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	ev := fmt.Sprintf(`{"signature":"f1","slot":5,"blockTime":%d,"mint":%q,"side":"sell","tokenAmount":1,"usdAmount":6,"priceUsd":6,"wallet":%q,"venue":"orca"}`,
		h.now.Unix()-30, crypto.Variants[0].Mint, syntheticMints(1)[0])
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"sqlite full", fmt.Errorf("sqlite: insert trades: %w", fmt.Errorf("%w: database or disk is full (13)", storage.ErrFull))},
		{"no space left on device", fmt.Errorf("store: %w: %w", storage.ErrFull, syscall.ENOSPC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.log.Reset()
			h.srv.d.Trades = &fakeIngester{err: tc.err}
			for range 20 {
				r := h.ingest(t, "trades", "application/x-ndjson", ev)
				if r.status != 503 || errCode(r) != "store_unavailable" || !strings.Contains(r.raw, `"_tag":"InternalServerError"`) ||
					strings.Contains(r.raw, "accepted") || strings.Contains(r.raw, "disk") {
					t.Fatalf("store full: %d %v %s", r.status, r.header, r.raw)
				}
			}
			if n := strings.Count(h.log.String(), "level=ERROR"); n != 0 {
				t.Errorf("%d error lines for 20 refused writes:\n%s", n, h.log.String())
			}
		})
	}
}
