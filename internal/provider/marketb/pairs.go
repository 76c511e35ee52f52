package marketb

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

type pairToken struct {
	Address string `json:"address"`
	Name    string `json:"name"`
	Symbol  string `json:"symbol"`
}

type txnWindow struct {
	Buys  upstream.Number `json:"buys"`
	Sells upstream.Number `json:"sells"`
}

func (w *txnWindow) total() upstream.Number {
	if w == nil {
		return upstream.Number{}
	}
	return upstream.Sum(w.Buys, w.Sells)
}

// pair is one DexScreener pair object (the fields the adapter reads).
type pair struct {
	ChainID     string          `json:"chainId"`
	DexID       string          `json:"dexId"`
	URL         string          `json:"url"`
	PairAddress string          `json:"pairAddress"`
	BaseToken   pairToken       `json:"baseToken"`
	QuoteToken  pairToken       `json:"quoteToken"`
	PriceNative upstream.Number `json:"priceNative"`
	PriceUSD    upstream.Number `json:"priceUsd"`
	Txns        struct {
		H1  *txnWindow `json:"h1"`
		H24 *txnWindow `json:"h24"`
	} `json:"txns"`
	Volume struct {
		H1  upstream.Number `json:"h1"`
		H24 upstream.Number `json:"h24"`
	} `json:"volume"`
	PriceChange struct {
		H1  upstream.Number `json:"h1"`
		H24 upstream.Number `json:"h24"`
	} `json:"priceChange"`
	Liquidity *struct {
		USD upstream.Number `json:"usd"`
	} `json:"liquidity"`
	FDV       upstream.Number `json:"fdv"`
	MarketCap upstream.Number `json:"marketCap"`
	Info      *struct {
		ImageURL string `json:"imageUrl"`
	} `json:"info"`
	// PairCreatedAt is the pair's creation time in unix milliseconds. It
	// is read leniently (see createdAt): a bad value loses the field, not
	// the response.
	PairCreatedAt json.RawMessage `json:"pairCreatedAt"`
}

func (p pair) liquidity() upstream.Number {
	if p.Liquidity == nil {
		return upstream.Number{}
	}
	return p.Liquidity.USD
}

// createdAt converts pairCreatedAt (unix ms, a JSON number or numeric
// string) to unix seconds, rounding down; absent, null, non-numeric or
// non-positive values give nil.
func (p pair) createdAt() *int64 {
	var n upstream.Number
	if len(p.PairCreatedAt) == 0 || json.Unmarshal(p.PairCreatedAt, &n) != nil || !n.Valid || n.V < 1000 || n.V >= math.MaxInt64 {
		return nil
	}
	v := int64(n.V) / 1000
	return &v
}

func (p pair) imageURL() string {
	if p.Info == nil {
		return ""
	}
	return p.Info.ImageURL
}

var errPairsShape = errors.New("expected an array of pairs or an object with a pairs array")

// parsePairs decodes either layout the API uses: a bare array of pairs
// (/tokens/v1, /token-pairs/v1) or {"schemaVersion", "pairs": [...]}
// (/latest/dex/tokens, /latest/dex/search), where pairs may be null.
// Pairs without a pair address or base token are dropped, repeats (same
// chain and pair address) collapse to the first.
func parsePairs(body []byte) ([]pair, error) {
	t := bytes.TrimSpace(body)
	var ps []pair
	switch {
	case len(t) > 0 && t[0] == '[':
		if err := json.Unmarshal(t, &ps); err != nil {
			return nil, upstream.Malformed(name, "pairs", err)
		}
	case len(t) > 0 && t[0] == '{':
		var w struct {
			Pairs json.RawMessage `json:"pairs"`
		}
		if err := json.Unmarshal(t, &w); err != nil {
			return nil, upstream.Malformed(name, "pairs", err)
		}
		if p := bytes.TrimSpace(w.Pairs); len(p) == 0 || string(p) == "null" {
			if len(p) == 0 {
				return nil, upstream.Malformed(name, "pairs", errPairsShape)
			}
			return nil, nil
		}
		if err := json.Unmarshal(w.Pairs, &ps); err != nil {
			return nil, upstream.Malformed(name, "pairs", err)
		}
	default:
		return nil, upstream.Malformed(name, "pairs", errPairsShape)
	}
	type key struct{ chain, addr string }
	seen := make(map[key]bool, len(ps))
	out := ps[:0]
	for _, p := range ps {
		k := key{p.ChainID, p.PairAddress}
		if p.PairAddress == "" || p.BaseToken.Address == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out, nil
}

func (p pair) dexMarket() market.DEXMarket {
	return market.DEXMarket{
		Address:      p.PairAddress,
		Venue:        p.DexID,
		BaseMint:     p.BaseToken.Address,
		BaseSymbol:   p.BaseToken.Symbol,
		QuoteMint:    p.QuoteToken.Address,
		QuoteSymbol:  p.QuoteToken.Symbol,
		PriceUSD:     p.PriceUSD.Ptr(),
		LiquidityUSD: p.liquidity().Ptr(),
		Volume24hUSD: p.Volume.H24.Ptr(),
		Trade24h:     p.Txns.H24.total().Ptr(),
		URL:          p.URL,
		CreatedAt:    p.createdAt(),
	}
}

// better reports whether a is a better reference pair than b: more
// liquidity (known beats unknown), then more 24h volume. Ties keep b (the
// earlier pair).
func better(a, b pair) bool {
	la, lb := a.liquidity(), b.liquidity()
	if la.Valid != lb.Valid {
		return la.Valid
	}
	if la.Valid && la.V != lb.V {
		return la.V > lb.V
	}
	va, vb := a.Volume.H24, b.Volume.H24
	if va.Valid != vb.Valid {
		return va.Valid
	}
	return va.Valid && va.V > vb.V
}

// summarize builds the snapshot of mint from the pairs that trade it, as
// base or quote:
//   - the reference pair is the most liquid pair with mint as base token;
//     price, 1h/24h price change, market cap (fdv when the market cap is
//     missing), symbol, name and logo come from it;
//   - with no such pair the price is derived from the most liquid pair
//     quoting mint (priceUsd / priceNative), identity from its quote
//     token, and price changes and market cap stay unknown;
//   - liquidity, 1h and 24h volume and trade counts (buys + sells) are
//     sums over all the pairs, in response order.
//
// ok is false when no pair trades mint.
func summarize(mint string, pairs []pair, fetchedAtMs int64) (market.Token, bool) {
	var base, quote *pair
	var liq, v1h, v24h, t1h, t24h upstream.Number
	n := 0
	for i := range pairs {
		p := &pairs[i]
		isBase, isQuote := p.BaseToken.Address == mint, p.QuoteToken.Address == mint
		if !isBase && !isQuote {
			continue
		}
		n++
		liq = upstream.Sum(liq, p.liquidity())
		v1h = upstream.Sum(v1h, p.Volume.H1)
		v24h = upstream.Sum(v24h, p.Volume.H24)
		t1h = upstream.Sum(t1h, p.Txns.H1.total())
		t24h = upstream.Sum(t24h, p.Txns.H24.total())
		switch {
		case isBase && (base == nil || better(*p, *base)):
			base = p
		case !isBase && p.PriceUSD.Valid && p.PriceNative.Valid && p.PriceNative.V > 0 && (quote == nil || better(*p, *quote)):
			quote = p
		}
	}
	if n == 0 {
		return market.Token{}, false
	}
	tok := market.Token{Mint: mint}
	m := asset.Market{
		Source:        asset.SourceMarketDataB,
		MetricsSource: asset.SourceMarketDataB,
		Liquidity:     liq.Ptr(),
		Volume1hUSD:   v1h.Ptr(),
		Volume24hUSD:  v24h.Ptr(),
		Trade1h:       t1h.Ptr(),
		Trade24h:      t24h.Ptr(),
		LastFetchedAt: &fetchedAtMs,
	}
	switch {
	case base != nil:
		tok.Symbol, tok.Name = base.BaseToken.Symbol, base.BaseToken.Name
		m.Price = base.PriceUSD.Ptr()
		m.PriceChange1hPercent = base.PriceChange.H1.Ptr()
		m.PriceChange24hPercent = base.PriceChange.H24.Ptr()
		m.MarketCap = base.MarketCap.Ptr()
		if m.MarketCap == nil {
			m.MarketCap = base.FDV.Ptr()
		}
		tok.LogoURI = base.imageURL()
		if tok.LogoURI == "" {
			tok.LogoURI = anyBaseImage(mint, pairs)
		}
	case quote != nil:
		tok.Symbol, tok.Name = quote.QuoteToken.Symbol, quote.QuoteToken.Name
		p := quote.PriceUSD.V / quote.PriceNative.V
		m.Price = &p
	default:
		for i := range pairs {
			if pairs[i].QuoteToken.Address == mint {
				tok.Symbol, tok.Name = pairs[i].QuoteToken.Symbol, pairs[i].QuoteToken.Name
				break
			}
		}
	}
	if tok.LogoURI != "" {
		l := tok.LogoURI
		m.LogoURI = &l
	}
	tok.Market = m
	return tok, true
}

// anyBaseImage returns the first image of a pair with mint as base token.
func anyBaseImage(mint string, pairs []pair) string {
	for _, p := range pairs {
		if p.BaseToken.Address == mint && p.imageURL() != "" {
			return p.imageURL()
		}
	}
	return ""
}
