package httpapi

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Market snapshot rows encoded once per content: POST
// /v1/assets/market-snapshots concatenates each mint's JSON row from a
// cache that keeps, per mint, the inputs of the last row encoded and its
// bytes. Inputs (catalog metadata, market snapshot, advisory) that compare
// equal to the cached ones reuse the bytes. The values behind the inputs'
// pointers are never modified once handed out by the market cache, the
// catalog and the advisory index, so comparing the values is comparing
// the bytes.

// snapRowEntries bounds the cache (emptied when full).
const snapRowEntries = 1 << 16

// snapInput is everything one snapshot row is built from.
type snapInput struct {
	mint               string
	assetID, sym, name string
	dec                *int
	advisory           *asset.Advisory
	tok                market.Token
	hasTok             bool
	// status is the row's asset.MarketStatus (set by the caller: it reads
	// the clock).
	status string
}

// setStatus sets in.status from the other inputs at now.
func (in *snapInput) setStatus(now time.Time) {
	var m *asset.Market
	if in.hasTok {
		m = &in.tok.Market
	}
	in.status = asset.MarketStatus(in.assetID != registry.SingletonAssetID(in.mint), m, in.advisory, now)
}

// row is the response row of the inputs.
func (in *snapInput) row() snapshotRow {
	row := snapshotRow{Address: in.mint, AssetID: in.assetID, Symbol: nonEmptyPtr(in.sym), Name: nonEmptyPtr(in.name),
		Decimals: in.dec, Advisory: in.advisory, Status: in.status}
	if in.hasTok {
		mk := in.tok.Market
		row.Market = &mk
		if row.Symbol == nil {
			row.Symbol = nonEmptyPtr(in.tok.Symbol)
		}
		if row.Name == nil {
			row.Name = nonEmptyPtr(in.tok.Name)
		}
		if row.Decimals == nil {
			row.Decimals = in.tok.Decimals
		}
		row.LogoURI = mk.LogoURI
		row.HasMarket = mk.Price != nil && *mk.Price > 0
	}
	return row
}

func (in *snapInput) equal(o *snapInput) bool {
	if in.mint != o.mint || in.assetID != o.assetID || in.sym != o.sym || in.name != o.name || !eqp(in.dec, o.dec) ||
		!advisoryEqual(in.advisory, o.advisory) || in.hasTok != o.hasTok || in.status != o.status {
		return false
	}
	if !in.hasTok {
		return true
	}
	a, b := &in.tok, &o.tok
	return a.Mint == b.Mint && a.Symbol == b.Symbol && a.Name == b.Name && eqp(a.Decimals, b.Decimals) &&
		a.LogoURI == b.LogoURI && marketEqual(&a.Market, &b.Market)
}

type snapRowFrag struct {
	in   snapInput
	json []byte
}

type snapRowCache struct {
	mu sync.RWMutex
	m  map[string]*snapRowFrag
}

// appendRow appends the JSON encoding of in's row (as encoding/json
// encodes it inside an array) to buf; false when the row cannot be
// encoded (a non-finite number: the caller falls back to the general
// encoder).
func (c *snapRowCache) appendRow(buf *bytes.Buffer, in *snapInput) bool {
	c.mu.RLock()
	f := c.m[in.mint]
	c.mu.RUnlock()
	if f == nil || !f.in.equal(in) {
		b, err := json.Marshal(in.row())
		if err != nil {
			return false
		}
		f = &snapRowFrag{in: *in, json: b}
		c.mu.Lock()
		if c.m == nil || len(c.m) >= snapRowEntries {
			c.m = make(map[string]*snapRowFrag, 256)
		}
		c.m[in.mint] = f
		c.mu.Unlock()
	}
	buf.Write(f.json)
	return true
}

func eqp[T comparable](a, b *T) bool {
	return a == b || (a != nil && b != nil && *a == *b)
}

func advisoryEqual(a, b *asset.Advisory) bool {
	if a == b {
		return true
	}
	return a != nil && b != nil && a.Status == b.Status && a.Reason == b.Reason && eqp(a.URL, b.URL) && a.Since == b.Since
}

// marketEqual compares every field of two markets by value
// (TestMarketEqualCoversEveryField keeps it complete).
func marketEqual(a, b *asset.Market) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	return a.Source == b.Source && a.MetricsSource == b.MetricsSource && eqp(a.Price, b.Price) &&
		eqp(a.Liquidity, b.Liquidity) && eqp(a.Volume1hUSD, b.Volume1hUSD) && eqp(a.Volume24hUSD, b.Volume24hUSD) &&
		eqp(a.Trade1h, b.Trade1h) && eqp(a.Trade24h, b.Trade24h) && eqp(a.UniqueWallet1h, b.UniqueWallet1h) &&
		eqp(a.UniqueWallet24h, b.UniqueWallet24h) && eqp(a.MarketCap, b.MarketCap) && eqp(a.Holders, b.Holders) &&
		eqp(a.PriceChange24hPercent, b.PriceChange24hPercent) && eqp(a.PriceChange1hPercent, b.PriceChange1hPercent) &&
		eqp(a.Decimals, b.Decimals) && eqp(a.LogoURI, b.LogoURI) && eqp(a.LastTradeAt, b.LastTradeAt) &&
		eqp(a.AsOf, b.AsOf) && eqp(a.LastFetchedAt, b.LastFetchedAt) && eqp(a.PriceTrades, b.PriceTrades) &&
		eqp(a.Rejected, b.Rejected)
}
