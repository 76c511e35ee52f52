package market

import (
	"context"
	"time"
)

// This file declares the canonical (asset-level) providers: an external
// coin listing (extprovider), a stock-market data feed for mapped public
// equities (analytics_stock) and a pre-IPO reference mark feed (preipo).
// Their data describes the asset as a whole, not one Solana mint.

// Coin is an external provider's profile and market stats of one listed
// coin. Numbers the provider did not report are nil.
type Coin struct {
	ID          string
	Symbol      string
	Name        string
	Description string // plain text (markup stripped), may be empty
	ImageURL    string
	Links       CoinLinks

	PriceUSD              *float64
	MarketCapUSD          *float64
	FDVUSD                *float64
	Volume24hUSD          *float64
	PriceChange24hPercent *float64
	PriceChange1hPercent  *float64
	CirculatingSupply     *float64
	TotalSupply           *float64
	MaxSupply             *float64
	AllTimeHighUSD        *float64
	AllTimeHighAt         time.Time // zero when unknown
	// LastUpdated is the provider's own last update of the market data
	// (zero when not reported).
	LastUpdated time.Time
}

// CoinLinks are a coin's public links (empty when unknown).
type CoinLinks struct {
	Website  string `json:"website,omitempty"`
	Twitter  string `json:"twitter,omitempty"`
	Telegram string `json:"telegram,omitempty"`
	Discord  string `json:"discord,omitempty"`
	Reddit   string `json:"reddit,omitempty"`
	GitHub   string `json:"github,omitempty"`
}

// Ticker is one exchange market of a coin.
type Ticker struct {
	Base                string
	Target              string
	MarketName          string
	MarketID            string
	MarketLogo          string
	HasTradingIncentive bool
	PriceUSD            *float64
	Volume24hUSD        *float64
	SpreadPercent       *float64
	TrustScore          string // "green", "yellow", "red" or empty
	TradeURL            string
	IsAnomaly           bool
	IsStale             bool
	Timestamp           time.Time // last trade / update, zero when unknown
}

// CoinProvider is an external canonical market-data provider keyed by its
// own coin ids (spec source "extprovider").
type CoinProvider interface {
	Source() string
	// Coin returns the profile and market stats of a coin id.
	Coin(ctx context.Context, id string) (Coin, error)
	// Tickers returns the coin's exchange markets, largest 24h volume
	// first, at most limit rows.
	Tickers(ctx context.Context, id string, limit int) ([]Ticker, error)
	// CoinCandles returns USD price candles of the coin whose open time
	// lies in [from, to) (unix seconds), ascending, aligned like mint
	// candles. Volume is USD when the provider reports it, else 0.
	CoinCandles(ctx context.Context, id string, interval Interval, from, to int64) ([]Candle, error)
}

// StockQuote is the latest stock-market data of a listed equity or ETF.
type StockQuote struct {
	Ticker                string
	PriceUSD              *float64
	PreviousCloseUSD      *float64
	Volume24hUSD          *float64 // traded value over the last session
	PriceChange24hPercent *float64
	MarketCapUSD          *float64 // nil unless shares outstanding are known
	// AsOf is when the quote was valid (the last trade or close).
	AsOf time.Time
}

// StockProvider serves mapped public equities (spec source
// "analytics_stock") by listing ticker.
type StockProvider interface {
	Source() string
	// Quote returns the latest quote; ErrNotFound when the ticker is
	// unknown.
	Quote(ctx context.Context, ticker string) (StockQuote, error)
	// StockCandles returns the ticker's candles in [from, to) (unix
	// seconds), ascending. Volume is USD traded value.
	StockCandles(ctx context.Context, ticker string, interval Interval, from, to int64) ([]Candle, error)
}

// PreIPOMark is a reference mark of a tokenized pre-IPO equity: the price
// of one share and the company valuation it implies, from the reference
// feed.
type PreIPOMark struct {
	Symbol           string
	MarkPriceUSD     *float64
	MarkValuationUSD *float64
	// TokenPriceUSD is the feed's own token price, used when the on-chain
	// price is unknown (nil when not reported).
	TokenPriceUSD *float64
	// UpdatedAt is the feed's timestamp of the mark (zero when unknown).
	UpdatedAt time.Time
}

// PreIPOProvider serves reference marks of tokenized pre-IPO equities by
// symbol (spec source "preipo").
type PreIPOProvider interface {
	Source() string
	// Mark returns the symbol's mark; ErrNotFound when it has none.
	Mark(ctx context.Context, symbol string) (PreIPOMark, error)
}
