package marketa

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

type marketToken struct {
	Address string `json:"address"`
	Symbol  string `json:"symbol"`
}

// marketItem is one entry of /defi/v2/markets data.items.
type marketItem struct {
	Address   string          `json:"address"`
	Name      string          `json:"name"`
	Source    string          `json:"source"`
	Base      marketToken     `json:"base"`
	Quote     marketToken     `json:"quote"`
	Price     upstream.Number `json:"price"`
	Liquidity upstream.Number `json:"liquidity"`
	Volume24h upstream.Number `json:"volume24h"`
	Trade24h  upstream.Number `json:"trade24h"`
	// CreatedAt is the pool's creation time, an ISO-8601 string such as
	// "2024-05-28T07:19:22.813Z". It is read leniently (see createdAt):
	// a bad value loses the field, not the market.
	CreatedAt json.RawMessage `json:"createdAt"`
}

type marketsData struct {
	Items []marketItem     `json:"items"`
	Total *upstream.Number `json:"total"`
}

// parseMarkets decodes a /defi/v2/markets response; total is -1 when the
// response does not say.
func parseMarkets(body []byte) (items []market.DEXMarket, total int, err error) {
	data, err := openEnvelope(body, "v2/markets")
	if err != nil || data == nil {
		return nil, -1, err
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, -1, upstream.Malformed(name, "v2/markets", errNotObject)
	}
	var d marketsData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, -1, upstream.Malformed(name, "v2/markets data", err)
	}
	total = -1
	if d.Total != nil && d.Total.Valid && d.Total.V >= 0 {
		total = int(min(d.Total.V, 1e9))
	}
	items = make([]market.DEXMarket, 0, len(d.Items))
	for _, it := range d.Items {
		if it.Address == "" {
			continue
		}
		items = append(items, it.dexMarket())
	}
	return items, total, nil
}

func (it marketItem) dexMarket() market.DEXMarket {
	return market.DEXMarket{
		Address:      it.Address,
		Venue:        it.Source,
		BaseMint:     it.Base.Address,
		BaseSymbol:   it.Base.Symbol,
		QuoteMint:    it.Quote.Address,
		QuoteSymbol:  it.Quote.Symbol,
		PriceUSD:     it.Price.Ptr(),
		LiquidityUSD: it.Liquidity.Ptr(),
		Volume24hUSD: it.Volume24h.Ptr(),
		Trade24h:     it.Trade24h.Ptr(),
		CreatedAt:    createdAt(it.CreatedAt),
	}
}

// createdAt converts a market item's createdAt to unix seconds (fractions
// dropped). It accepts an RFC 3339 string, or one without a zone, read as
// UTC; anything else (absent, null, a number, an unparsable string, a time
// not after 1970) gives nil.
func createdAt(raw json.RawMessage) *int64 {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t, err = time.Parse("2006-01-02T15:04:05.999999999", s); err != nil {
			return nil
		}
	}
	if t.Unix() <= 0 {
		return nil
	}
	v := t.Unix()
	return &v
}

// Markets lists the DEX markets of mint from /defi/v2/markets
// (time_frame=24h, sort_by=liquidity, sort_type=desc), paging by 20 until
// limit (default 10, at most MaxMarkets) markets are collected. An
// unknown or malformed mint gives an empty list.
func (c *Client) Markets(ctx context.Context, mint string, limit int) ([]market.DEXMarket, error) {
	if limit <= 0 {
		limit = DefaultMarketsLimit
	}
	limit = min(limit, MaxMarkets)
	if !upstream.ValidMint(mint) {
		return nil, nil
	}
	var out []market.DEXMarket
	seen := map[string]bool{}
	for offset := 0; len(out) < limit; {
		pageLimit := min(MarketsPageSize, limit-len(out))
		q := url.Values{
			"address":    {mint},
			"time_frame": {"24h"},
			"sort_by":    {"liquidity"},
			"sort_type":  {"desc"},
			"offset":     {strconv.Itoa(offset)},
			"limit":      {strconv.Itoa(pageLimit)},
		}
		body, err := c.http.Get(ctx, "/defi/v2/markets", q)
		if upstream.IsStatus(err, http.StatusNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		page, total, err := parseMarkets(body)
		if err != nil {
			return nil, err
		}
		for _, m := range page {
			if !seen[m.Address] && len(out) < limit {
				seen[m.Address] = true
				out = append(out, m)
			}
		}
		offset += len(page)
		if len(page) < pageLimit || (total >= 0 && offset >= total) {
			break
		}
	}
	for i := range out {
		bounds.DEXMarket(&out[i], c.http.Nulled)
	}
	upstream.SortMarkets(out)
	return out, nil
}
