package extprovider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// tickerDoc is one entry of a /coins/{id}/tickers answer.
type tickerDoc struct {
	Base   string `json:"base"`
	Target string `json:"target"`
	Market struct {
		Name                string `json:"name"`
		Identifier          string `json:"identifier"`
		Logo                string `json:"logo"`
		HasTradingIncentive bool   `json:"has_trading_incentive"`
	} `json:"market"`
	ConvertedLast   usdNumber       `json:"converted_last"`
	ConvertedVolume usdNumber       `json:"converted_volume"`
	Spread          upstream.Number `json:"bid_ask_spread_percentage"`
	TrustScore      string          `json:"trust_score"`
	TradeURL        string          `json:"trade_url"`
	IsAnomaly       bool            `json:"is_anomaly"`
	IsStale         bool            `json:"is_stale"`
	Timestamp       string          `json:"timestamp"`
	LastTradedAt    string          `json:"last_traded_at"`
}

func (t tickerDoc) ticker() market.Ticker {
	ts := parseTime(t.Timestamp)
	if ts.IsZero() {
		ts = parseTime(t.LastTradedAt)
	}
	trust := strings.ToLower(strings.TrimSpace(t.TrustScore))
	switch trust {
	case "green", "yellow", "red":
	default:
		trust = ""
	}
	return market.Ticker{
		Base:                strings.TrimSpace(t.Base),
		Target:              strings.TrimSpace(t.Target),
		MarketName:          strings.TrimSpace(t.Market.Name),
		MarketID:            strings.TrimSpace(t.Market.Identifier),
		MarketLogo:          httpURL(t.Market.Logo),
		HasTradingIncentive: t.Market.HasTradingIncentive,
		PriceUSD:            t.ConvertedLast.USD.Ptr(),
		Volume24hUSD:        t.ConvertedVolume.USD.Ptr(),
		SpreadPercent:       t.Spread.Ptr(),
		TrustScore:          trust,
		TradeURL:            httpURL(t.TradeURL),
		IsAnomaly:           t.IsAnomaly,
		IsStale:             t.IsStale,
		Timestamp:           ts,
	}
}

// parseTickers decodes one /coins/{id}/tickers page; n is the number of
// entries it held, for paging. An answer without a tickers array is
// malformed.
func parseTickers(body []byte) (ts []market.Ticker, n int, err error) {
	var d struct {
		Tickers *[]tickerDoc `json:"tickers"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, 0, upstream.Malformed(name, "tickers", err)
	}
	if d.Tickers == nil {
		return nil, 0, upstream.Malformed(name, "tickers", errors.New("no tickers array in the response"))
	}
	ts = make([]market.Ticker, 0, len(*d.Tickers))
	for _, t := range *d.Tickers {
		ts = append(ts, t.ticker())
	}
	return ts, len(*d.Tickers), nil
}

// Tickers returns the exchange markets of a coin from
// GET /coins/{id}/tickers (order=volume_desc, include_exchange_logo=true,
// dex_pair_format=symbol), at most limit rows (default 10, capped at
// MaxTickers). Pages of 100 are fetched until limit rows are collected or
// a page comes back short, at most three. Rows repeated across pages
// (same market, pair and trade URL) are kept once. The result keeps the
// provider's order, stable-sorted by USD 24h volume descending (unknown
// last). An unknown id wraps market.ErrNotFound.
func (c *Client) Tickers(ctx context.Context, id string, limit int) ([]market.Ticker, error) {
	if limit <= 0 {
		limit = DefaultTickersLimit
	}
	limit = min(limit, MaxTickers)
	path, err := coinPath(id, "/tickers")
	if err != nil {
		return nil, err
	}
	type key struct{ market, base, target, url string }
	seen := map[key]bool{}
	out := []market.Ticker{}
	for page := 1; page <= maxTickerPages && len(out) < limit; page++ {
		q := url.Values{
			"page":                  {strconv.Itoa(page)},
			"order":                 {"volume_desc"},
			"include_exchange_logo": {"true"},
			"dex_pair_format":       {"symbol"},
		}
		body, err := c.get(ctx, path, q)
		if err != nil {
			if page > 1 && errors.Is(err, market.ErrNotFound) {
				break // past the last page
			}
			return nil, err
		}
		rows, n, err := parseTickers(body)
		if err != nil {
			return nil, err
		}
		for _, t := range rows {
			k := key{t.MarketID, t.Base, t.Target, t.TradeURL}
			if !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
		if n < TickersPageSize {
			break
		}
	}
	for i := range out {
		bounds.Ticker(&out[i], c.http.Nulled)
	}
	sortTickers(out)
	if len(out) > limit {
		out = out[:limit:limit]
	}
	return out, nil
}

// sortTickers stable-sorts by USD 24h volume descending, unknown last.
func sortTickers(ts []market.Ticker) {
	vol := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	slices.SortStableFunc(ts, func(a, b market.Ticker) int {
		return cmp.Compare(vol(b.Volume24hUSD), vol(a.Volume24hUSD))
	})
}
