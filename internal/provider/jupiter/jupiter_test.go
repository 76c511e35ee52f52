package jupiter

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
	"github.com/google/go-cmp/cmp"
)

const (
	sol  = "So11111111111111111111111111111111111111112"
	usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

func newProvider(t *testing.T, h http.Handler, timeout time.Duration) *Provider {
	t.Helper()
	srv := providertest.Server(t, h)
	p, err := New(Config{BaseURL: srv.URL, Interval: -1, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOrderFixture decodes the recorded /order example of the vendor's
// OpenAPI document (100000000 lamports of SOL → USDC) and checks the call
// is quote-only: no taker, so no transaction is built.
func TestOrderFixture(t *testing.T) {
	doc := providertest.SharedData(t, "fixtures-jupiter-doc-examples.json")
	body := providertest.JSONPath(t, doc, "specs", "openapi-spec/ultra/ultra.yaml", "endpoints", 0, "examples", 0)
	var got http.Request
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r
		providertest.JSON(200, body).ServeHTTP(w, r)
	})
	p := newProvider(t, h, 0)
	q, err := p.Quote(context.Background(), execution.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: big.NewInt(100_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	if got.URL.Path != "/order" || got.URL.Query().Has("taker") || got.URL.Query().Get("amount") != "100000000" ||
		got.URL.Query().Get("inputMint") != sol || got.URL.Query().Get("outputMint") != usdc || got.Header.Get("x-api-key") != "" {
		t.Errorf("request %s %v", got.URL, got.Header)
	}
	if q.InAmount.String() != "100000000" || q.OutAmount.String() != "17057460" || q.Router != "metis" || q.Mode != "ExactIn" ||
		*q.FeeBps != 5 || q.FeeMint != usdc {
		t.Errorf("quote %+v", q)
	}
	if q.PriceImpact == nil || *q.PriceImpact != 0.000001 { // 0.0001 percentage points
		t.Errorf("price impact %v", q.PriceImpact)
	}
	want := []execution.Hop{{AmmKey: "HXpGFJGCEEFdV31tDmjDBaJMEB1fKLiAoKoWr3Fnonid", Label: "Meteora DLMM", Percent: 100, InputMint: sol,
		OutputMint: usdc, InAmountRaw: "100000000", OutAmountRaw: "17057460"}}
	if diff := cmp.Diff(want, q.Route); diff != "" {
		t.Errorf("route (-want +got):\n%s", diff)
	}
}

func TestAPIKeyHeader(t *testing.T) {
	var key string
	srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key = r.Header.Get("x-api-key")
		providertest.JSON(200, []byte(`{"inAmount":"5","outAmount":"7"}`)).ServeHTTP(w, r)
	}))
	p, err := New(Config{BaseURL: srv.URL, APIKey: "k1", Interval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Quote(context.Background(), execution.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: big.NewInt(5)}); err != nil || key != "k1" {
		t.Fatalf("err %v key %q", err, key)
	}
	for key, want := range map[string]time.Duration{"": KeylessInterval, "k1": KeyInterval} {
		if p, _ := New(Config{APIKey: key}); p.interval != want {
			t.Errorf("key %q: interval %v, want %v", key, p.interval, want)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name   string
		h      http.Handler
		reason string
	}{
		{"unauthorized", providertest.Reply(401, nil, `{"error":"no"}`), execution.ReasonAuth},
		{"forbidden", providertest.Reply(403, nil, ``), execution.ReasonAuth},
		{"bad request", providertest.Reply(400, nil, `{"error":"no route"}`), execution.ReasonNoRoute},
		{"server", providertest.Reply(502, nil, ``), execution.ReasonError},
		{"rate limited", providertest.Reply(429, map[string]string{"Retry-After": "3"}, ``), execution.ReasonError},
		{"garbage", providertest.Reply(200, nil, `{"inAmount":`), execution.ReasonMalformed},
		{"not integers", providertest.Reply(200, nil, `{"inAmount":"5","outAmount":"1.5"}`), execution.ReasonMalformed},
		{"other amount", providertest.Reply(200, nil, `{"inAmount":"6","outAmount":"7"}`), execution.ReasonMalformed},
		{"error body", providertest.Reply(200, nil, `{"errorCode":1,"errorMessage":"no routes found"}`), execution.ReasonNoRoute},
		{"zero out", providertest.Reply(200, nil, `{"inAmount":"5","outAmount":"0"}`), execution.ReasonNoRoute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, c.h, 0)
			_, err := p.Quote(context.Background(), execution.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: big.NewInt(5)})
			if got := execution.ReasonOf(err); got != c.reason {
				t.Errorf("reason %q (err %v), want %q", got, err, c.reason)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	p := newProvider(t, providertest.Blocking(t), -1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := p.Quote(ctx, execution.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: big.NewInt(5)})
	if execution.ReasonOf(err) != execution.ReasonTimeout {
		t.Errorf("err %v", err)
	}
}

// TestPacing: keyless calls are spaced at the public rate; a call whose
// slot comes after its deadline gives up at once as a timeout, without
// reserving the slot.
func TestPacing(t *testing.T) {
	now := time.Unix(1000, 0)
	p, err := New(Config{BaseURL: "http://127.0.0.1:1", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := p.slot(context.Background()); !ok || w != 0 {
		t.Fatalf("first slot %v %v", w, ok)
	}
	if w, ok := p.slot(context.Background()); !ok || w != KeylessInterval {
		t.Fatalf("second slot %v %v, want %v", w, ok, KeylessInterval)
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(time.Second))
	defer cancel()
	if _, ok := p.slot(ctx); ok {
		t.Fatal("a slot beyond the deadline was granted")
	}
	_, err = p.Quote(ctx, execution.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: big.NewInt(5)})
	var u *execution.UnavailableError
	if !errors.As(err, &u) || u.Reason != execution.ReasonTimeout {
		t.Errorf("err %v", err)
	}
	if w, _ := p.slot(context.Background()); w != 2*KeylessInterval {
		t.Errorf("refused calls must not reserve slots: wait %v", w)
	}
}
