package titan

import (
	"context"
	"math/big"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mr-tron/base58"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

const (
	sol  = "So11111111111111111111111111111111111111112"
	usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

func raw(t *testing.T, mint string) []byte {
	t.Helper()
	b, err := base58.Decode(mint)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// body encodes a quote answer in the documented Titan shape: quotes keyed
// by route id, mints and pool keys as raw 32-byte strings, u64 amounts.
// The amounts are constructed for the test, not recorded.
func body(t *testing.T) []byte {
	t.Helper()
	stepOf := func(in, out uint64, inMint, outMint string) map[string]any {
		return map[string]any{"ammKey": raw(t, usdc), "label": "Raydium CLMM", "inputMint": raw(t, inMint), "outputMint": raw(t, outMint),
			"inAmount": in, "outAmount": out, "allocPpb": uint64(1_000_000_000), "feeAmount": uint64(0), "feeMint": raw(t, inMint)}
	}
	b, err := msgpack.Marshal(map[string]any{"quotes": map[string]any{
		"Titan":   map[string]any{"inAmount": uint64(100_000_000), "outAmount": uint64(17_057_460), "contextSlot": uint64(441_000_000), "steps": []any{stepOf(100_000_000, 17_057_460, sol, usdc)}},
		"Other":   map[string]any{"inAmount": uint64(100_000_000), "outAmount": uint64(17_000_000), "steps": []any{stepOf(100_000_000, 17_000_000, sol, usdc)}},
		"Partial": map[string]any{"inAmount": uint64(90_000_000), "outAmount": uint64(18_000_000), "steps": []any{stepOf(90_000_000, 18_000_000, sol, usdc)}},
		"Wrong":   map[string]any{"inAmount": uint64(100_000_000), "outAmount": uint64(99_000_000), "steps": []any{stepOf(100_000_000, 99_000_000, sol, sol)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newProvider(t *testing.T, h http.Handler) *Provider {
	t.Helper()
	srv := providertest.Server(t, h)
	p, err := New(Config{BaseURL: srv.URL, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var req = execution.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: big.NewInt(100_000_000)}

func TestQuote(t *testing.T) {
	b := body(t)
	var got *http.Request
	p := newProvider(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Header().Set("Content-Type", "application/vnd.msgpack")
		_, _ = w.Write(b)
	}))
	q, err := p.Quote(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	v := got.URL.Query()
	if got.URL.Path != "/api/v1/quote/swap" || got.Header.Get("Authorization") != "Bearer tok" || v.Get("userPublicKey") != PlaceholderUser ||
		v.Get("amount") != "100000000" || v.Get("slippageBps") != "50" || v.Get("inputMint") != sol {
		t.Errorf("request %s %v", got.URL, got.Header)
	}
	// The larger outputs spend a different input or end at another mint.
	if q.OutAmount.String() != "17057460" || q.Router != "Titan" || *q.ContextSlot != 441_000_000 || len(q.Route) != 1 {
		t.Fatalf("quote %+v", q)
	}
	h := q.Route[0]
	if h.AmmKey != usdc || h.InputMint != sol || h.OutputMint != usdc || h.Percent != 100 || h.OutAmountRaw != "17057460" || *h.FeeAmountRaw != "0" || *h.FeeMint != sol {
		t.Errorf("hop %+v", h)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name   string
		h      http.Handler
		reason string
	}{
		{"unauthorized", providertest.Reply(401, nil, ""), execution.ReasonAuth},
		{"forbidden", providertest.Reply(403, nil, ""), execution.ReasonAuth},
		{"bad request", providertest.Reply(400, nil, ""), execution.ReasonNoRoute},
		{"not found", providertest.Reply(404, nil, ""), execution.ReasonNoRoute},
		{"server twice", providertest.Reply(503, nil, ""), execution.ReasonError},
		{"garbage", providertest.Reply(200, nil, "\xc1"), execution.ReasonMalformed},
		{"no quotes", providertest.Reply(200, nil, "\x81\xa6quotes\x80"), execution.ReasonNoRoute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newProvider(t, c.h).Quote(context.Background(), req)
			if got := execution.ReasonOf(err); got != c.reason {
				t.Errorf("reason %q (%v), want %q", got, err, c.reason)
			}
		})
	}
}

// TestRetry: one 5xx is retried once.
func TestRetry(t *testing.T) {
	b := body(t)
	var n atomic.Int32
	p := newProvider(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(502)
			return
		}
		_, _ = w.Write(b)
	}))
	if _, err := p.Quote(context.Background(), req); err != nil || n.Load() != 2 {
		t.Fatalf("err %v after %d calls", err, n.Load())
	}
}

func TestTimeout(t *testing.T) {
	p := newProvider(t, providertest.Blocking(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := p.Quote(ctx, req); execution.ReasonOf(err) != execution.ReasonTimeout {
		t.Errorf("err %v", err)
	}
}

func TestConfig(t *testing.T) {
	if _, err := New(Config{BaseURL: "https://example.com"}); err == nil {
		t.Error("no token accepted")
	}
}
