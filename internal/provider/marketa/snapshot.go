package marketa

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// overview is the part of a /defi/token_overview data object the adapter
// reads.
type overview struct {
	Address               string          `json:"address"`
	Symbol                string          `json:"symbol"`
	Name                  string          `json:"name"`
	Decimals              upstream.Number `json:"decimals"`
	LogoURI               string          `json:"logoURI"`
	Price                 upstream.Number `json:"price"`
	Liquidity             upstream.Number `json:"liquidity"`
	MarketCap             upstream.Number `json:"marketCap"`
	PriceChange1hPercent  upstream.Number `json:"priceChange1hPercent"`
	PriceChange24hPercent upstream.Number `json:"priceChange24hPercent"`
	V1hUSD                upstream.Number `json:"v1hUSD"`
	V24hUSD               upstream.Number `json:"v24hUSD"`
	Trade1h               upstream.Number `json:"trade1h"`
	Trade24h              upstream.Number `json:"trade24h"`
	UniqueWallet1h        upstream.Number `json:"uniqueWallet1h"`
	UniqueWallet24h       upstream.Number `json:"uniqueWallet24h"`
	LastTradeUnixTime     upstream.Number `json:"lastTradeUnixTime"`
	Holder                upstream.Number `json:"holder"`
}

// empty reports whether the object says nothing about a token (Birdeye's
// answer for an address it does not know).
func (o overview) empty() bool {
	return o.Address == "" && o.Symbol == "" && o.Name == "" && !o.Price.Valid && !o.Liquidity.Valid && !o.MarketCap.Valid
}

// parseOverview decodes a /defi/token_overview response. found is false
// when the data member is null, {} or carries nothing about a token.
func parseOverview(body []byte) (o overview, found bool, err error) {
	data, err := openEnvelope(body, "token_overview")
	if err != nil || data == nil {
		return overview{}, false, err
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return overview{}, false, upstream.Malformed(name, "token_overview", errNotObject)
	}
	if err := json.Unmarshal(data, &o); err != nil {
		return overview{}, false, upstream.Malformed(name, "token_overview data", err)
	}
	if o.empty() {
		return overview{}, false, nil
	}
	return o, true, nil
}

// token maps an overview onto market.Token for mint.
func (o overview) token(mint string, fetchedAtMs *int64) market.Token {
	dec := o.Decimals.IntPtr()
	var logo *string
	if o.LogoURI != "" {
		l := o.LogoURI
		logo = &l
	}
	return market.Token{
		Mint:     mint,
		Symbol:   o.Symbol,
		Name:     o.Name,
		Decimals: dec,
		LogoURI:  o.LogoURI,
		Market: asset.Market{
			Source:                asset.SourceMarketDataA,
			MetricsSource:         asset.SourceMarketDataA,
			Price:                 o.Price.Ptr(),
			Liquidity:             o.Liquidity.Ptr(),
			Volume1hUSD:           o.V1hUSD.Ptr(),
			Volume24hUSD:          o.V24hUSD.Ptr(),
			Trade1h:               o.Trade1h.Ptr(),
			Trade24h:              o.Trade24h.Ptr(),
			UniqueWallet1h:        o.UniqueWallet1h.Ptr(),
			UniqueWallet24h:       o.UniqueWallet24h.Ptr(),
			MarketCap:             o.MarketCap.Ptr(),
			Holders:               o.Holder.Ptr(),
			PriceChange24hPercent: o.PriceChange24hPercent.Ptr(),
			PriceChange1hPercent:  o.PriceChange1hPercent.Ptr(),
			Decimals:              dec,
			LogoURI:               logo,
			LastTradeAt:           o.LastTradeUnixTime.Int64Ptr(),
			LastFetchedAt:         fetchedAtMs,
		},
	}
}

// Snapshots fetches /defi/token_overview for each mint, at most
// Concurrency at a time. Unknown mints (404, empty data) and malformed
// mint strings are absent from the result. A rate limit (429) stops the
// batch and is returned. Other per-mint failures leave that mint absent
// and are logged; only when every lookup failed is the error returned. On
// error the map still holds the mints that succeeded.
func (c *Client) Snapshots(ctx context.Context, mints []string) (map[string]market.Token, error) {
	mints = upstream.Dedupe(mints)
	valid := mints[:0:0]
	for _, m := range mints {
		if upstream.ValidMint(m) {
			valid = append(valid, m)
		}
	}
	found := make([]*market.Token, len(valid))
	errs := upstream.ForEach(ctx, len(valid), c.concurrency, func(ctx context.Context, i int) error {
		t, ok, err := c.snapshot(ctx, valid[i])
		if ok {
			found[i] = &t
		}
		return err
	})
	out := make(map[string]market.Token, len(valid))
	for i, t := range found {
		if t != nil {
			out[valid[i]] = *t
		}
	}
	return out, upstream.SettleBatch(ctx, c.log, name, errs)
}

func (c *Client) snapshot(ctx context.Context, mint string) (market.Token, bool, error) {
	q := url.Values{"address": {mint}, "ui_amount_mode": {"scaled"}}
	body, err := c.http.Get(ctx, "/defi/token_overview", q)
	if upstream.IsStatus(err, http.StatusNotFound) {
		return market.Token{}, false, nil
	}
	if err != nil {
		return market.Token{}, false, err
	}
	o, ok, err := parseOverview(body)
	if err != nil || !ok {
		return market.Token{}, false, err
	}
	t := o.token(mint, unixMilli(c.http.Now()))
	bounds.Market(&t.Market, c.http.Nulled)
	return t, true, nil
}
