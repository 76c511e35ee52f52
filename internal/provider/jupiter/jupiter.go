// Package jupiter is a quote-only adapter for a Jupiter-compatible Swap
// V2 / Ultra `/order` API: it asks for an order without a taker, so the
// upstream builds no transaction, and reports the quote to the execution
// endpoints. Keyless by default at the public rate (0.5 requests/s); an
// API key raises it.
package jupiter

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/provider/internal/quoteerr"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// ID is the provider id.
const ID = "jupiter"

// DefaultBaseURL is the public API root of /order.
const DefaultBaseURL = "https://api.jup.ag/ultra/v1"

// Rates: keyless callers get 0.5 requests/s, a free key 1 request/s.
const (
	KeylessInterval = 2 * time.Second
	KeyInterval     = time.Second
)

// Config configures the adapter.
type Config struct {
	BaseURL    string
	APIKey     string // optional; sent as x-api-key
	HTTPClient *http.Client
	// Interval spaces calls (default KeylessInterval, or KeyInterval with
	// a key); negative disables pacing.
	Interval time.Duration
	Timeout  time.Duration
	Now      func() time.Time
}

// Provider is the adapter.
type Provider struct {
	c        *upstream.Client
	interval time.Duration
	now      func() time.Time

	mu   sync.Mutex
	next time.Time // earliest start of the next call
}

// New returns the adapter.
func New(cfg Config) (*Provider, error) {
	h := http.Header{}
	if cfg.APIKey != "" {
		h.Set("x-api-key", cfg.APIKey)
	}
	c, err := upstream.New(upstream.Options{Name: ID, BaseURL: cfg.BaseURL, DefaultBaseURL: DefaultBaseURL, HTTPClient: cfg.HTTPClient,
		Timeout: cfg.Timeout, Header: h, SecretHeaders: []string{"x-api-key"}, Now: cfg.Now})
	if err != nil {
		return nil, err
	}
	iv := cfg.Interval
	if iv == 0 {
		iv = KeylessInterval
		if cfg.APIKey != "" {
			iv = KeyInterval
		}
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Provider{c: c, interval: iv, now: now}, nil
}

// ID is "jupiter".
func (p *Provider) ID() string { return ID }

// slot reserves the next call slot and returns how long to wait for it;
// ok is false when the wait would outlast ctx (nothing is reserved).
func (p *Provider) slot(ctx context.Context) (wait time.Duration, ok bool) {
	if p.interval < 0 {
		return 0, true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	start := now
	if p.next.After(now) {
		start = p.next
	}
	if dl, has := ctx.Deadline(); has && start.After(dl) {
		return 0, false
	}
	p.next = start.Add(p.interval)
	return start.Sub(now), true
}

type order struct {
	InAmount    string   `json:"inAmount"`
	OutAmount   string   `json:"outAmount"`
	PriceImpact *float64 `json:"priceImpact"`
	RoutePlan   []struct {
		SwapInfo struct {
			AmmKey     string  `json:"ammKey"`
			Label      string  `json:"label"`
			InputMint  string  `json:"inputMint"`
			OutputMint string  `json:"outputMint"`
			InAmount   string  `json:"inAmount"`
			OutAmount  string  `json:"outAmount"`
			FeeAmount  *string `json:"feeAmount"`
			FeeMint    *string `json:"feeMint"`
		} `json:"swapInfo"`
		Percent float64 `json:"percent"`
	} `json:"routePlan"`
	Router       string `json:"router"`
	Mode         string `json:"mode"`
	FeeBps       *int   `json:"feeBps"`
	FeeMint      string `json:"feeMint"`
	ErrorCode    *int   `json:"errorCode"`
	ErrorMessage string `json:"errorMessage"`
}

// Quote asks /order for an exact-in quote without a taker.
func (p *Provider) Quote(ctx context.Context, req execution.QuoteRequest) (execution.Quote, error) {
	wait, ok := p.slot(ctx)
	if !ok {
		return execution.Quote{}, execution.Unavailable(execution.ReasonTimeout, "jupiter: no call slot before the deadline")
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return execution.Quote{}, execution.Unavailable(execution.ReasonTimeout, "jupiter: %w", ctx.Err())
		case <-t.C:
		}
	}
	q := url.Values{"inputMint": {req.InputMint}, "outputMint": {req.OutputMint}, "amount": {req.Amount.String()}}
	body, err := p.c.Get(ctx, "/order", q)
	if err != nil {
		return execution.Quote{}, quoteerr.Classify(err)
	}
	var o order
	if err := json.Unmarshal(body, &o); err != nil {
		return execution.Quote{}, execution.Unavailable(execution.ReasonMalformed, "jupiter: decode /order: %w", err)
	}
	return decode(o, req)
}

func decode(o order, req execution.QuoteRequest) (execution.Quote, error) {
	if o.OutAmount == "" && (o.ErrorCode != nil || o.ErrorMessage != "") {
		return execution.Quote{}, &execution.UnavailableError{Reason: execution.ReasonNoRoute, Err: fmt.Errorf("jupiter: %s", o.ErrorMessage)}
	}
	in, ok1 := new(big.Int).SetString(o.InAmount, 10)
	out, ok2 := new(big.Int).SetString(o.OutAmount, 10)
	if !ok1 || !ok2 || in.Sign() < 0 || out.Sign() < 0 {
		return execution.Quote{}, execution.Unavailable(execution.ReasonMalformed, "jupiter: amounts %q/%q are not integers", o.InAmount, o.OutAmount)
	}
	if in.Cmp(req.Amount) != 0 {
		return execution.Quote{}, execution.Unavailable(execution.ReasonMalformed, "jupiter: quoted %s in, asked %s", in, req.Amount)
	}
	if out.Sign() == 0 {
		return execution.Quote{}, execution.ErrNoRoute
	}
	q := execution.Quote{InAmount: in, OutAmount: out, Router: o.Router, Mode: o.Mode, FeeBps: o.FeeBps, FeeMint: o.FeeMint, Route: []execution.Hop{}}
	if o.PriceImpact != nil && !math.IsNaN(*o.PriceImpact) && !math.IsInf(*o.PriceImpact, 0) {
		// priceImpact is signed percentage points; report the magnitude
		// as a ratio (-98.46 → 0.9846).
		v := math.Abs(*o.PriceImpact) / 100
		q.PriceImpact = &v
	}
	for _, h := range o.RoutePlan {
		s := h.SwapInfo
		q.Route = append(q.Route, execution.Hop{AmmKey: s.AmmKey, Label: s.Label, Percent: h.Percent, InputMint: s.InputMint,
			OutputMint: s.OutputMint, InAmountRaw: s.InAmount, OutAmountRaw: s.OutAmount, FeeAmountRaw: s.FeeAmount, FeeMint: s.FeeMint})
	}
	return q, nil
}
