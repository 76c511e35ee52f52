package httpapi

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// CanonicalData is the canonical (asset-level) part of the market cache:
// the external provider's coins, tickers and candles and the stock-market
// candles of mapped equities. Reads answer from memory at once and may
// schedule a refresh.
type CanonicalData interface {
	Coin(id string) (market.Coin, time.Time, bool)
	Tickers(id string) ([]market.Ticker, time.Time, bool)
	CoinCandles(id string, iv market.Interval, from, to int64) ([]market.Candle, bool)
	StockCandles(ticker string, iv market.Interval, from, to int64) ([]market.Candle, bool)
}

type noCanonical struct{}

func (noCanonical) Coin(string) (market.Coin, time.Time, bool) {
	return market.Coin{}, time.Time{}, false
}
func (noCanonical) Tickers(string) ([]market.Ticker, time.Time, bool) {
	return nil, time.Time{}, false
}
func (noCanonical) CoinCandles(string, market.Interval, int64, int64) ([]market.Candle, bool) {
	return nil, false
}
func (noCanonical) StockCandles(string, market.Interval, int64, int64) ([]market.Candle, bool) {
	return nil, false
}

// registryAsset is the registry entry of a resolution (nil for singletons).
func (s *Server) registryAsset(res registry.Resolution) *registry.Asset {
	a, ok := s.d.Catalog.Snapshot().Asset(res.AssetID)
	if !ok {
		return nil
	}
	return a
}

// Reasons of an unavailable block ({ok:false, reason, message}).
const (
	reasonNotAvailable  = "not_available"  // the asset has no external listing id
	reasonNotConfigured = "not_configured" // no provider of this kind is configured
	reasonNotFound      = "not_found"      // nothing cached (yet): a refresh was scheduled
	reasonForbidden     = "forbidden"      // the key lacks the block's scope
	reasonTimeout       = "timeout"        // the block missed the include deadline
	reasonError         = "error"          // the block failed
)

// profileData is the `data` of a profile block.
type profileData struct {
	CoinID                string           `json:"coinId"`
	Name                  string           `json:"name,omitempty"`
	Symbol                string           `json:"symbol,omitempty"`
	ImageURL              *string          `json:"imageUrl"`
	Description           *string          `json:"description"`
	Links                 market.CoinLinks `json:"links"`
	Price                 *float64         `json:"price"`
	MarketCap             *float64         `json:"marketCap"`
	FDV                   *float64         `json:"fdv"`
	Volume24hUSD          *float64         `json:"volume24hUSD"`
	PriceChange24hPercent *float64         `json:"priceChange24hPercent"`
	PriceChange1hPercent  *float64         `json:"priceChange1hPercent"`
	CirculatingSupply     *float64         `json:"circulatingSupply"`
	TotalSupply           *float64         `json:"totalSupply"`
	MaxSupply             *float64         `json:"maxSupply"`
	AllTimeHigh           *float64         `json:"allTimeHigh"`
	AllTimeHighAt         *int64           `json:"allTimeHighAt"`         // unix seconds
	ProviderLastUpdatedAt *int64           `json:"providerLastUpdatedAt"` // unix seconds
	LastFetchedAt         int64            `json:"lastFetchedAt"`         // unix ms
}

// profileBlock computes the profile of an asset: the external provider's
// cached coin when the asset has an external listing id.
func (s *Server) profileBlock(a *registry.Asset) includeBlock {
	if a == nil || a.CoinID == "" {
		return includeBlock{Reason: reasonNotAvailable, Message: "the asset has no external listing id"}
	}
	if !s.d.ExternalProvider {
		return includeBlock{Reason: reasonNotConfigured, Message: "no external market-data provider is configured"}
	}
	c, at, ok := s.d.Canonical.Coin(a.CoinID)
	if !ok {
		if !at.IsZero() {
			return includeBlock{Reason: reasonNotFound, Message: "the external provider does not list " + a.CoinID}
		}
		return includeBlock{Reason: reasonNotFound, Message: "profile not cached yet; a refresh was scheduled"}
	}
	d := profileData{CoinID: a.CoinID, Name: c.Name, Symbol: c.Symbol, ImageURL: nonEmptyPtr(c.ImageURL), Description: nonEmptyPtr(c.Description),
		Links: c.Links, Price: c.PriceUSD, MarketCap: c.MarketCapUSD, FDV: c.FDVUSD, Volume24hUSD: c.Volume24hUSD,
		PriceChange24hPercent: c.PriceChange24hPercent, PriceChange1hPercent: c.PriceChange1hPercent,
		CirculatingSupply: c.CirculatingSupply, TotalSupply: c.TotalSupply, MaxSupply: c.MaxSupply, AllTimeHigh: c.AllTimeHighUSD,
		AllTimeHighAt: unixSec(c.AllTimeHighAt), ProviderLastUpdatedAt: unixSec(c.LastUpdated), LastFetchedAt: at.UnixMilli()}
	return includeBlock{OK: true, Data: d}
}

func unixSec(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	v := t.Unix()
	return &v
}

// GET /v1/assets/{assetId}/profile
func (s *Server) assetProfile(w http.ResponseWriter, r *http.Request) error {
	res, err := s.pathAsset(r)
	if err != nil {
		return err
	}
	a := s.registryAsset(res)
	var coinID *string
	if a != nil {
		coinID = nonEmptyPtr(a.CoinID)
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID string       `json:"assetId"`
		CoinID  *string      `json:"coinId"`
		Profile includeBlock `json:"profile"`
	}{res.AssetID, coinID, s.profileBlock(a)})
}

// tickerRow is one exchange ticker of GET /v1/assets/{assetId}/tickers.
type tickerRow struct {
	Base          string       `json:"base"`
	Target        string       `json:"target"`
	Market        tickerMarket `json:"market"`
	PriceUSD      *float64     `json:"priceUsd"`
	Volume24hUSD  *float64     `json:"volume24hUsd"`
	SpreadPercent *float64     `json:"spreadPercent"`
	TrustScore    *string      `json:"trustScore"`
	TradeURL      *string      `json:"tradeUrl"`
	IsAnomaly     bool         `json:"isAnomaly"`
	IsStale       bool         `json:"isStale"`
	Timestamp     *int64       `json:"timestamp"` // unix seconds
}

type tickerMarket struct {
	Name                string  `json:"name"`
	Identifier          string  `json:"identifier,omitempty"`
	Logo                *string `json:"logo"`
	HasTradingIncentive bool    `json:"hasTradingIncentive"`
}

// tickerOrders are the accepted `order` values; volume_desc is the cached
// order.
var tickerOrders = []string{"volume_desc", "volume_asc", "trust_score_desc", "trust_score_asc"}

func trustRank(s string) int {
	switch s {
	case "green":
		return 3
	case "yellow":
		return 2
	case "red":
		return 1
	}
	return 0
}

func volumeOf(t *market.Ticker) float64 {
	if t.Volume24hUSD == nil {
		return -1
	}
	return *t.Volume24hUSD
}

// GET /v1/assets/{assetId}/tickers
func (s *Server) assetTickers(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	limit, err := limitParam(q, "limit", 10, 1, 50)
	if err != nil {
		return err
	}
	order, err := enumParam(q, "order", "volume_desc", tickerOrders)
	if err != nil {
		return err
	}
	res, err := s.pathAsset(r)
	if err != nil {
		return err
	}
	a := s.registryAsset(res)
	var coinID *string
	var all []market.Ticker
	var fetched time.Time
	if a != nil && a.CoinID != "" {
		coinID = &a.CoinID
		all, fetched, _ = s.d.Canonical.Tickers(a.CoinID)
	}
	if order != "volume_desc" {
		all = slices.Clone(all)
		slices.SortStableFunc(all, func(x, y market.Ticker) int {
			switch order {
			case "volume_asc":
				return cmp.Compare(volumeOf(&x), volumeOf(&y))
			case "trust_score_desc":
				return cmp.Or(cmp.Compare(trustRank(y.TrustScore), trustRank(x.TrustScore)), cmp.Compare(volumeOf(&y), volumeOf(&x)))
			default: // trust_score_asc
				return cmp.Or(cmp.Compare(trustRank(x.TrustScore), trustRank(y.TrustScore)), cmp.Compare(volumeOf(&y), volumeOf(&x)))
			}
		})
	}
	page := all[min(offset, len(all)):min(offset+limit, len(all))]
	rows := make([]tickerRow, len(page))
	for i, t := range page {
		rows[i] = tickerRow{Base: t.Base, Target: t.Target, Market: tickerMarket{Name: t.MarketName, Identifier: t.MarketID,
			Logo: nonEmptyPtr(t.MarketLogo), HasTradingIncentive: t.HasTradingIncentive}, PriceUSD: t.PriceUSD, Volume24hUSD: t.Volume24hUSD,
			SpreadPercent: t.SpreadPercent, TrustScore: nonEmptyPtr(t.TrustScore), TradeURL: nonEmptyPtr(t.TradeURL), IsAnomaly: t.IsAnomaly,
			IsStale: t.IsStale, Timestamp: unixSec(t.Timestamp)}
	}
	type page_ struct {
		Rows          []tickerRow `json:"rows"`
		Total         int         `json:"total"`
		Offset        int         `json:"offset"`
		Limit         int         `json:"limit"`
		Order         string      `json:"order"`
		LastUpdatedAt *int64      `json:"lastUpdatedAt"`
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID string  `json:"assetId"`
		CoinID  *string `json:"coinId"`
		Tickers page_   `json:"tickers"`
	}{res.AssetID, coinID, page_{rows, len(all), offset, limit, order, msPtr(fetched)}})
}

// MaxDescriptionSummary bounds a description summary (characters).
const MaxDescriptionSummary = 480

// summarize turns a provider description into a short summary: its first
// paragraph, cut after the last full sentence within
// MaxDescriptionSummary characters (or at a word boundary with "…").
func summarize(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.Index(text, "\n\n"); i > 0 {
		text = text[:i]
	}
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= MaxDescriptionSummary {
		return text
	}
	cut := string(r[:MaxDescriptionSummary])
	if i := strings.LastIndexAny(cut, ".!?"); i >= MaxDescriptionSummary/3 {
		return cut[:i+1]
	}
	if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRightFunc(cut, func(c rune) bool { return unicode.IsPunct(c) || unicode.IsSpace(c) }) + "…"
}

// descriptionBody is the `description` of GET /v1/assets/{assetId}/description.
type descriptionBody struct {
	Summary       string `json:"summary"`
	Source        string `json:"source"`
	CoinID        string `json:"coinId"`
	LastFetchedAt int64  `json:"lastFetchedAt"` // unix ms
}

// GET /v1/assets/{assetId}/description
func (s *Server) assetDescription(w http.ResponseWriter, r *http.Request) error {
	res, mint, err := s.assetMint(r)
	if err != nil {
		return err
	}
	var desc *descriptionBody
	if a := s.registryAsset(res); a != nil && a.CoinID != "" {
		if c, at, ok := s.d.Canonical.Coin(a.CoinID); ok && strings.TrimSpace(c.Description) != "" {
			desc = &descriptionBody{Summary: summarize(c.Description), Source: asset.SourceExtProvider, CoinID: a.CoinID, LastFetchedAt: at.UnixMilli()}
		}
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID     string           `json:"assetId"`
		Mint        string           `json:"mint"`
		Description *descriptionBody `json:"description"`
	}{res.AssetID, mint, desc})
}

// GET /v1/assets/{assetId}/price-chart: canonical price candles; the
// source order is chart.Service.Price's.
func (s *Server) priceChart(w http.ResponseWriter, r *http.Request) error {
	res, mint, err := s.assetMint(r)
	if err != nil {
		return err
	}
	iv, from, to, err := s.candleQuery(r)
	if err != nil {
		return err
	}
	fill, err := fillParam(r)
	if err != nil {
		return err
	}
	a := s.registryAsset(res)
	c := s.charts().Price(a, mint, iv, from, to)
	if fill == chart.FillPrevious {
		c = s.fillPrevious(c, iv, from, to, func(from, to int64) chart.Chart { return s.charts().Price(a, mint, iv, from, to) })
	}
	return writeJSON(w, http.StatusOK, struct {
		AssetID  string          `json:"assetId"`
		Interval market.Interval `json:"interval"`
		From     int64           `json:"from"`
		To       int64           `json:"to"`
		chart.Chart
	}{res.AssetID, iv, from, to, c})
}
