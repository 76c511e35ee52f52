// Package marketa is the adapter for a Birdeye-compatible market data API,
// the spec's market source "marketdata_a". It implements
// market.SnapshotProvider (GET /defi/token_overview, one call per mint
// with bounded concurrency), market.MarketsProvider (GET /defi/v2/markets)
// and market.OHLCVProvider (GET /defi/v3/ohlcv). Every request carries the
// X-API-KEY and x-chain headers. docs/providers.md has the field mapping.
package marketa

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// DefaultBaseURL is Birdeye's public API.
const DefaultBaseURL = "https://public-api.birdeye.so"

// Defaults of Config.
const (
	DefaultChain       = "solana"
	DefaultMaxBatch    = 50
	DefaultConcurrency = 4
	// MarketsPageSize is the most markets one /defi/v2/markets call returns.
	MarketsPageSize = 20
	// MaxMarkets bounds what Markets fetches (in pages of MarketsPageSize).
	MaxMarkets = 100
	// DefaultMarketsLimit is used when Markets gets a limit <= 0.
	DefaultMarketsLimit = 10
	// OHLCVPageSize is the most candles one /defi/v3/ohlcv call returns.
	OHLCVPageSize = 5000
	// maxOHLCVPages bounds the calls of one OHLCV request (the API's
	// 10,000-candle read limit needs 2).
	maxOHLCVPages = 4
)

// Config configures a Client. APIKey is required.
type Config struct {
	// BaseURL of the API; empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as X-API-KEY. It is never logged.
	APIKey string
	// Chain is sent as x-chain; empty means "solana".
	Chain string
	// HTTPClient performs the calls; nil means a new http.Client.
	HTTPClient *http.Client
	// Timeout bounds each HTTP call (on top of the caller's context);
	// 0 means 15 s.
	Timeout time.Duration
	// Logger receives debug records per call and warnings on failures;
	// nil discards.
	Logger *slog.Logger
	// MaxBatch is what MaxBatch reports; 0 means DefaultMaxBatch.
	MaxBatch int
	// Concurrency bounds the parallel token_overview calls of one
	// Snapshots call; 0 means DefaultConcurrency.
	Concurrency int
	// MaxBody caps a response body; 0 means 8 MiB.
	MaxBody int64
	// Now is the clock for LastFetchedAt and HTTP-date Retry-After; nil
	// means time.Now.
	Now func() time.Time
	// Implausible counts each decoded value nulled by internal/bounds, by
	// provider and field (e.g. a metric); nil counts nothing.
	Implausible func(provider, field string)
}

// Client is the marketdata_a adapter. It is safe for concurrent use.
type Client struct {
	http        *upstream.Client
	log         *slog.Logger
	maxBatch    int
	concurrency int
}

var (
	_ market.SnapshotProvider = (*Client)(nil)
	_ market.MarketsProvider  = (*Client)(nil)
	_ market.OHLCVProvider    = (*Client)(nil)
)

const name = "marketa"

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		return nil, errors.New("marketa: APIKey is required")
	}
	chain := cfg.Chain
	if chain == "" {
		chain = DefaultChain
	}
	if cfg.MaxBatch < 0 || cfg.Concurrency < 0 {
		return nil, errors.New("marketa: MaxBatch and Concurrency must not be negative")
	}
	h := http.Header{}
	h.Set("X-API-KEY", key)
	h.Set("x-chain", chain)
	hc, err := upstream.New(upstream.Options{
		Name:           name,
		BaseURL:        cfg.BaseURL,
		DefaultBaseURL: DefaultBaseURL,
		HTTPClient:     cfg.HTTPClient,
		Timeout:        cfg.Timeout,
		Logger:         cfg.Logger,
		Header:         h,
		SecretHeaders:  []string{"X-API-KEY"},
		MaxBody:        cfg.MaxBody,
		Now:            cfg.Now,
		Implausible:    cfg.Implausible,
	})
	if err != nil {
		return nil, err
	}
	c := &Client{http: hc, log: hc.Logger(), maxBatch: cfg.MaxBatch, concurrency: cfg.Concurrency}
	if c.maxBatch == 0 {
		c.maxBatch = DefaultMaxBatch
	}
	if c.concurrency == 0 {
		c.concurrency = DefaultConcurrency
	}
	return c, nil
}

// Source returns asset.SourceMarketDataA.
func (c *Client) Source() string { return asset.SourceMarketDataA }

// MaxBatch is the configured batch size (default 50). Snapshots accepts
// larger batches too; they just take longer.
func (c *Client) MaxBatch() int { return c.maxBatch }

// envelope is Birdeye's response wrapper.
type envelope struct {
	Success *bool           `json:"success"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

// openEnvelope returns the data member of a Birdeye response, nil when it
// is null or absent. success:false is an upstream failure.
func openEnvelope(body []byte, what string) (json.RawMessage, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, upstream.Malformed(name, what, err)
	}
	if env.Success == nil && len(env.Data) == 0 {
		return nil, upstream.Malformed(name, what, errors.New("neither success nor data in the response"))
	}
	if env.Success != nil && !*env.Success {
		msg := env.Message
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return nil, fmt.Errorf("%s: %s: success=false (%q): %w", name, what, msg, market.ErrUpstream)
	}
	if len(env.Data) == 0 || string(env.Data) == "null" {
		return nil, nil
	}
	return env.Data, nil
}

func unixMilli(t time.Time) *int64 {
	ms := t.UnixMilli()
	return &ms
}

var errNotObject = errors.New("data is not a JSON object")
