// Package titan is a quote adapter for a Titan-compatible REST quote API:
// GET /api/v1/quote/swap with a bearer token, answered in MessagePack. It
// asks for quotes only (a placeholder user key; nothing is signed) and
// reports the best route whose input equals the request and whose steps
// start and end at the requested mints.
package titan

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"time"

	"github.com/mr-tron/base58"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/quoteerr"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// ID is the provider id.
const ID = "titan"

// PlaceholderUser is the user key sent with quote-only requests.
const PlaceholderUser = "Fake111111111111111111111111111111111111111"

// DefaultSlippageBps is sent with every request (quotes do not depend on it).
const DefaultSlippageBps = 50

// retryBase is the back-off before the one retry of a 408, 429 or 5xx.
const retryBase = 150 * time.Millisecond

// Config configures the adapter. BaseURL and Token are required: there is
// no keyless Titan endpoint.
type Config struct {
	BaseURL    string
	Token      string
	HTTPClient *http.Client
	Timeout    time.Duration
}

// Provider is the adapter.
type Provider struct{ c *upstream.Client }

// New returns the adapter.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" || cfg.Token == "" {
		return nil, errors.New("titan: a base URL and a token are required")
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+cfg.Token)
	h.Set("Accept", "application/vnd.msgpack")
	c, err := upstream.New(upstream.Options{Name: ID, BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient, Timeout: cfg.Timeout,
		Header: h, SecretHeaders: []string{"Authorization"}})
	if err != nil {
		return nil, err
	}
	return &Provider{c: c}, nil
}

// ID is "titan".
func (p *Provider) ID() string { return ID }

type step struct {
	AmmKey     []byte  `msgpack:"ammKey"`
	Label      string  `msgpack:"label"`
	InputMint  []byte  `msgpack:"inputMint"`
	OutputMint []byte  `msgpack:"outputMint"`
	InAmount   uint64  `msgpack:"inAmount"`
	OutAmount  uint64  `msgpack:"outAmount"`
	AllocPpb   uint64  `msgpack:"allocPpb"`
	FeeMint    []byte  `msgpack:"feeMint"`
	FeeAmount  *uint64 `msgpack:"feeAmount"`
}

type route struct {
	InAmount    uint64  `msgpack:"inAmount"`
	OutAmount   uint64  `msgpack:"outAmount"`
	Steps       []step  `msgpack:"steps"`
	ContextSlot *uint64 `msgpack:"contextSlot"`
}

type answer struct {
	Quotes map[string]route `msgpack:"quotes"`
}

// Quote asks for quotes and returns the best matching route.
func (p *Provider) Quote(ctx context.Context, req execution.QuoteRequest) (execution.Quote, error) {
	q := url.Values{"inputMint": {req.InputMint}, "outputMint": {req.OutputMint}, "amount": {req.Amount.String()},
		"userPublicKey": {PlaceholderUser}, "slippageBps": {fmt.Sprint(DefaultSlippageBps)}}
	body, err := p.c.Get(ctx, "/api/v1/quote/swap", q)
	if err != nil && retryable(err) {
		t := time.NewTimer(retryBase)
		select {
		case <-ctx.Done():
			t.Stop()
			return execution.Quote{}, quoteerr.Classify(ctx.Err())
		case <-t.C:
		}
		body, err = p.c.Get(ctx, "/api/v1/quote/swap", q)
	}
	if err != nil {
		return execution.Quote{}, quoteerr.Classify(err)
	}
	var a answer
	if err := msgpack.Unmarshal(body, &a); err != nil {
		return execution.Quote{}, execution.Unavailable(execution.ReasonMalformed, "titan: decode quotes: %w", err)
	}
	return best(a, req)
}

func retryable(err error) bool {
	var rl *market.RateLimitedError
	return errors.As(err, &rl) || upstream.IsStatus(err, http.StatusRequestTimeout, 500, 502, 503, 504)
}

// best picks the largest output among the routes that spend exactly the
// requested input and go from the input mint to the output mint; ties go
// to the lexically first route id, so the answer does not depend on map
// order.
func best(a answer, req execution.QuoteRequest) (execution.Quote, error) {
	var pick *route
	var pickID string
	for id, r := range a.Quotes {
		r := r
		if len(r.Steps) == 0 || new(big.Int).SetUint64(r.InAmount).Cmp(req.Amount) != 0 ||
			base58.Encode(r.Steps[0].InputMint) != req.InputMint || base58.Encode(r.Steps[len(r.Steps)-1].OutputMint) != req.OutputMint {
			continue
		}
		if pick == nil || r.OutAmount > pick.OutAmount || r.OutAmount == pick.OutAmount && id < pickID {
			pick, pickID = &r, id
		}
	}
	if pick == nil || pick.OutAmount == 0 {
		return execution.Quote{}, execution.ErrNoRoute
	}
	q := execution.Quote{InAmount: new(big.Int).SetUint64(pick.InAmount), OutAmount: new(big.Int).SetUint64(pick.OutAmount),
		Router: pickID, Route: make([]execution.Hop, 0, len(pick.Steps))}
	if pick.ContextSlot != nil {
		s := int64(*pick.ContextSlot)
		q.ContextSlot = &s
	}
	for _, s := range pick.Steps {
		h := execution.Hop{AmmKey: base58.Encode(s.AmmKey), Label: s.Label, Percent: float64(s.AllocPpb) / 1e7,
			InputMint: base58.Encode(s.InputMint), OutputMint: base58.Encode(s.OutputMint),
			InAmountRaw: fmt.Sprint(s.InAmount), OutAmountRaw: fmt.Sprint(s.OutAmount)}
		if s.FeeAmount != nil {
			v := fmt.Sprint(*s.FeeAmount)
			h.FeeAmountRaw = &v
		}
		if len(s.FeeMint) > 0 {
			v := base58.Encode(s.FeeMint)
			h.FeeMint = &v
		}
		q.Route = append(q.Route, h)
	}
	return q, nil
}
