// Package marketb is the adapter for a DexScreener-compatible API (keyless),
// the spec's market source "marketdata_b". It implements
// market.SnapshotProvider from GET /tokens/v1/{chain}/{mints} (up to 30
// comma-separated mints per call; the snapshot of a mint aggregates the
// pairs that trade it) and market.MarketsProvider from
// GET /latest/dex/tokens/{mint} (the pairs of one mint, most liquid
// first). docs/providers.md has the field mapping.
package marketb

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/bounds"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// DefaultBaseURL is DexScreener's public API.
const DefaultBaseURL = "https://api.dexscreener.com"

// Defaults and limits.
const (
	DefaultChainID = "solana"
	// TokensPerCall is the most mints one /tokens/v1 call takes; it is
	// also MaxBatch.
	TokensPerCall      = 30
	DefaultConcurrency = 2
	// DefaultMarketsLimit is used when Markets gets a limit <= 0.
	DefaultMarketsLimit = 10
)

// Config configures a Client. The API needs no key.
type Config struct {
	// BaseURL of the API; empty means DefaultBaseURL.
	BaseURL string
	// ChainID selects the chain path segment and filters pairs; empty
	// means "solana".
	ChainID string
	// HTTPClient performs the calls; nil means a new http.Client.
	HTTPClient *http.Client
	// Timeout bounds each HTTP call; 0 means 15 s.
	Timeout time.Duration
	// Logger receives debug records per call and warnings on failures;
	// nil discards.
	Logger *slog.Logger
	// Concurrency bounds the parallel /tokens/v1 calls of one Snapshots
	// call with more than 30 mints; 0 means DefaultConcurrency.
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

// Client is the marketdata_b adapter. It is safe for concurrent use.
type Client struct {
	http        *upstream.Client
	log         *slog.Logger
	chain       string
	concurrency int
}

var (
	_ market.SnapshotProvider = (*Client)(nil)
	_ market.MarketsProvider  = (*Client)(nil)
)

const name = "marketb"

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	chain := strings.TrimSpace(cfg.ChainID)
	if chain == "" {
		chain = DefaultChainID
	}
	if strings.ContainsAny(chain, "/?#,") {
		return nil, errors.New("marketb: ChainID must be a plain path segment")
	}
	if cfg.Concurrency < 0 {
		return nil, errors.New("marketb: Concurrency must not be negative")
	}
	hc, err := upstream.New(upstream.Options{
		Name:           name,
		BaseURL:        cfg.BaseURL,
		DefaultBaseURL: DefaultBaseURL,
		HTTPClient:     cfg.HTTPClient,
		Timeout:        cfg.Timeout,
		Logger:         cfg.Logger,
		MaxBody:        cfg.MaxBody,
		Now:            cfg.Now,
		Implausible:    cfg.Implausible,
	})
	if err != nil {
		return nil, err
	}
	c := &Client{http: hc, log: hc.Logger(), chain: chain, concurrency: cfg.Concurrency}
	if c.concurrency == 0 {
		c.concurrency = DefaultConcurrency
	}
	return c, nil
}

// Source returns asset.SourceMarketDataB.
func (c *Client) Source() string { return asset.SourceMarketDataB }

// MaxBatch is 30, the mints one /tokens/v1 call accepts. Snapshots splits
// larger batches into several calls.
func (c *Client) MaxBatch() int { return TokensPerCall }

// Snapshots fetches /tokens/v1/{chain}/{mints} in calls of up to 30 mints
// and aggregates, per requested mint, the returned pairs that trade it
// (see summarize). Mints without pairs and malformed mint strings are
// absent. A rate limit (429) is returned; other failures of some calls
// leave their mints absent and are logged, and only when every call
// failed is the error returned. On error the map still holds the mints
// that succeeded.
func (c *Client) Snapshots(ctx context.Context, mints []string) (map[string]market.Token, error) {
	var valid []string
	for _, m := range upstream.Dedupe(mints) {
		if upstream.ValidMint(m) {
			valid = append(valid, m)
		}
	}
	chunks := upstream.Chunk(valid, TokensPerCall)
	got := make([][]pair, len(chunks))
	errs := upstream.ForEach(ctx, len(chunks), c.concurrency, func(ctx context.Context, i int) error {
		ps, err := c.pairs(ctx, "/tokens/v1/"+upstream.PathSegment(c.chain)+"/"+upstream.PathSegment(strings.Join(chunks[i], ",")))
		got[i] = ps
		return err
	})
	out := make(map[string]market.Token, len(valid))
	fetchedAt := c.http.Now().UnixMilli()
	for i, chunk := range chunks {
		if errs[i] != nil {
			continue
		}
		for _, m := range chunk {
			if t, ok := summarize(m, got[i], fetchedAt); ok {
				bounds.Market(&t.Market, c.http.Nulled)
				out[m] = t
			}
		}
	}
	return out, upstream.SettleBatch(ctx, c.log, name, errs)
}

// Markets lists the pairs of mint on the configured chain from
// /latest/dex/tokens/{mint}, most liquid first, at most limit (default
// 10). Pairs quoting the mint are included; PriceUSD is always the pair's
// base-token price, as the API reports it. An unknown or malformed mint
// gives an empty list.
func (c *Client) Markets(ctx context.Context, mint string, limit int) ([]market.DEXMarket, error) {
	if limit <= 0 {
		limit = DefaultMarketsLimit
	}
	if !upstream.ValidMint(mint) {
		return nil, nil
	}
	ps, err := c.pairs(ctx, "/latest/dex/tokens/"+upstream.PathSegment(mint))
	if err != nil {
		return nil, err
	}
	var out []market.DEXMarket
	for _, p := range ps {
		if p.BaseToken.Address == mint || p.QuoteToken.Address == mint {
			d := p.dexMarket()
			bounds.DEXMarket(&d, c.http.Nulled)
			out = append(out, d)
		}
	}
	upstream.SortMarkets(out)
	if len(out) > limit {
		out = out[:limit:limit]
	}
	return out, nil
}

// pairs GETs path and returns the pairs on the client's chain. 404 means
// no pairs.
func (c *Client) pairs(ctx context.Context, path string) ([]pair, error) {
	body, err := c.http.Get(ctx, path, nil)
	if upstream.IsStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ps, err := parsePairs(body)
	if err != nil {
		return nil, err
	}
	kept := ps[:0]
	for _, p := range ps {
		if p.ChainID == "" || p.ChainID == c.chain {
			kept = append(kept, p)
		}
	}
	return kept, nil
}
