// Package market declares what the market-data pipeline consumes from
// upstream providers (real adapters and the demo world implement these
// interfaces) and the value types that cross that seam. Every call takes a
// context whose deadline the implementation must honour.
package market

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/asset"
)

// Token is a market snapshot of one mint together with the token metadata
// the provider reported.
type Token struct {
	Mint     string
	Symbol   string
	Name     string
	Decimals *int
	LogoURI  string
	Market   asset.Market // Source/MetricsSource are set by the provider
}

// SnapshotProvider returns market snapshots for a batch of mints. Mints the
// provider does not know are absent from the result (a partial batch is
// not an error).
type SnapshotProvider interface {
	// Source is the spec's vendor-neutral source name (asset.Source*).
	Source() string
	// MaxBatch is the most mints one Snapshots call accepts.
	MaxBatch() int
	Snapshots(ctx context.Context, mints []string) (map[string]Token, error)
}

// DEXMarket is one liquidity pool (market) trading a mint.
type DEXMarket struct {
	Address      string   `json:"address"`
	Venue        string   `json:"venue"` // DEX name, e.g. "Raydium"
	BaseMint     string   `json:"baseMint"`
	BaseSymbol   string   `json:"baseSymbol,omitempty"`
	QuoteMint    string   `json:"quoteMint"`
	QuoteSymbol  string   `json:"quoteSymbol,omitempty"`
	PriceUSD     *float64 `json:"priceUsd"`
	LiquidityUSD *float64 `json:"liquidityUsd"`
	Volume24hUSD *float64 `json:"volume24hUsd"`
	Trade24h     *float64 `json:"trade24h"`
	URL          string   `json:"url,omitempty"`
	// CreatedAt is when the pool was created, unix seconds (nil when the
	// provider does not say). The oldest pool bounds the token's age.
	CreatedAt *int64 `json:"createdAt,omitempty"`
	// ProtocolTokens are mints in this pool owned by the protocol itself
	// (e.g. LP or vault tokens), reported as protocolTokensByMarket.
	ProtocolTokens []string `json:"-"`
}

// MarketsProvider lists the DEX markets of a mint, most liquid first.
type MarketsProvider interface {
	Source() string
	Markets(ctx context.Context, mint string, limit int) ([]DEXMarket, error)
}

// Candle is one OHLCV bar; Time is the bar's open, unix seconds; Volume is
// USD.
type Candle struct {
	Time   int64   `json:"time"`
	Open   float64 `json:"open"`
	High   float64 `json:"high"`
	Low    float64 `json:"low"`
	Close  float64 `json:"close"`
	Volume float64 `json:"volume"`
}

// Interval is an OHLCV interval of the spec: 1m, 5m, 15m, 1H, 4H, 1D, 1W.
type Interval string

// Intervals in ascending length.
var Intervals = []Interval{"1m", "5m", "15m", "1H", "4H", "1D", "1W"}

// Duration of the interval (0 for an unknown one).
func (i Interval) Duration() time.Duration {
	switch i {
	case "1m":
		return time.Minute
	case "5m":
		return 5 * time.Minute
	case "15m":
		return 15 * time.Minute
	case "1H":
		return time.Hour
	case "4H":
		return 4 * time.Hour
	case "1D":
		return 24 * time.Hour
	case "1W":
		return 7 * 24 * time.Hour
	}
	return 0
}

// OHLCVProvider returns candles of a mint in [from, to) (unix seconds),
// ascending by time.
type OHLCVProvider interface {
	Source() string
	OHLCV(ctx context.Context, mint string, interval Interval, from, to int64) ([]Candle, error)
}

// TokenMeta is token metadata for mints the registry does not know.
type TokenMeta struct {
	Mint     string `json:"mint"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals *int   `json:"decimals"`
	LogoURI  string `json:"logoURI"`
	Verified bool   `json:"verified"`
}

// MetadataProvider looks up token metadata by mint (batch) and by text.
type MetadataProvider interface {
	Lookup(ctx context.Context, mints []string) (map[string]TokenMeta, error)
	Search(ctx context.Context, query string, limit int) ([]TokenMeta, error)
}

// LST is one liquid staking token of an LST index.
type LST struct {
	Mint     string
	Symbol   string
	Name     string
	Decimals int
	LogoURI  string
	Pool     string // stake pool program family
}

// LSTIndex lists the active liquid staking tokens.
type LSTIndex interface {
	LSTs(ctx context.Context) ([]LST, error)
}

// Provider errors. Adapters wrap them; callers test with errors.Is/As.
var (
	// ErrUpstream: the provider failed (5xx, transport error, timeout).
	ErrUpstream = errors.New("upstream provider failed")
	// ErrMalformed: the provider answered something that does not parse.
	ErrMalformed = errors.New("malformed provider response")
	// ErrNotFound: the provider does not know the id, ticker or symbol.
	ErrNotFound = errors.New("not found at provider")
	// ErrPending: this replica is not the cluster's refresher and the
	// refresher has not published the result yet (internal/refresh). No
	// upstream call was made; the caller retries later.
	ErrPending = errors.New("provider result not yet published by the cluster's refresher")
)

// RateLimitedError is returned on HTTP 429; RetryAfter is zero when the
// provider did not say.
type RateLimitedError struct {
	RetryAfter time.Duration
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("provider rate limited (retry after %s)", e.RetryAfter)
}
