// Package extprovider is the adapter for a CoinGecko-compatible API, the
// spec's canonical source "extprovider". It implements
// market.CoinProvider, keyed by the provider's own coin ids:
//
//   - Coin: GET /coins/{id} (localization, tickers, community and
//     developer data and sparkline off, market_data on). The HTML
//     description becomes plain text; USD market stats map to the
//     market.Coin numbers (nil when absent or null, a reported 0 stays 0).
//   - Tickers: GET /coins/{id}/tickers (order=volume_desc, exchange logos,
//     DEX pairs as symbols), paged by 100 up to MaxTickers rows, sorted by
//     USD 24h volume (unknown last).
//   - CoinCandles: GET /coins/{id}/market_chart/range (vs_currency=usd,
//     precision=full). The price points are bucketed into candles of the
//     requested interval, aligned to UTC boundaries like mint candles (1W
//     on Monday 00:00 UTC): open is the first point of the bucket, close
//     the last, high and low the extremes. Only buckets holding at least
//     one point are returned, so intervals finer than the API's own
//     granularity (5-minute points for ranges up to a day, hourly up to 90
//     days, daily beyond) give sparse candles.
//   - News: GET /news (paid plans only), as a news.Source (news.go).
//
// Candle Volume is always 0: the API's total_volumes series is a rolling
// 24h volume sampled at each point, not the volume traded within a
// bucket, and no per-bucket figure can be derived from it.
//
// An unknown coin id (HTTP 404) wraps market.ErrNotFound on all three
// methods; every other failure follows the shared contract of
// internal/provider/internal/upstream. An optional API key is sent as
// x-cg-demo-api-key, or x-cg-pro-api-key with Config.Pro; it is never
// logged.
package extprovider

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// Base URLs of the CoinGecko API.
const (
	// DefaultBaseURL is the public (and demo-key) API.
	DefaultBaseURL = "https://api.coingecko.com/api/v3"
	// DefaultProBaseURL is used instead when Config.Pro is set and
	// Config.BaseURL is empty: pro keys are only accepted there.
	DefaultProBaseURL = "https://pro-api.coingecko.com/api/v3"
)

// API key headers.
const (
	DemoKeyHeader = "x-cg-demo-api-key"
	ProKeyHeader  = "x-cg-pro-api-key"
)

// Limits and defaults.
const (
	// TickersPageSize is the fixed page size of /coins/{id}/tickers.
	TickersPageSize = 100
	// maxTickerPages bounds the calls of one Tickers request.
	maxTickerPages = 3
	// MaxTickers bounds what Tickers returns (maxTickerPages pages).
	MaxTickers = maxTickerPages * TickersPageSize
	// DefaultTickersLimit is used when Tickers gets a limit <= 0.
	DefaultTickersLimit = 10
	// maxIDLen bounds a coin id; longer ones cannot exist upstream.
	maxIDLen = 200
)

// Config configures a Client. The API key is optional.
type Config struct {
	// BaseURL of the API, including the /api/v3 prefix; empty means
	// DefaultBaseURL (DefaultProBaseURL when Pro is set).
	BaseURL string
	// APIKey, optional, is sent as x-cg-demo-api-key, or as
	// x-cg-pro-api-key when Pro is set. It is never logged.
	APIKey string
	// Pro marks APIKey as a paid-plan key; it requires APIKey.
	Pro bool
	// HTTPClient performs the calls; nil means a new http.Client.
	HTTPClient *http.Client
	// Timeout bounds each HTTP call; 0 means 15 s.
	Timeout time.Duration
	// Logger receives debug records per call and warnings on failures;
	// nil discards.
	Logger *slog.Logger
	// MaxBody caps a response body; 0 means 8 MiB.
	MaxBody int64
	// Now is the clock for HTTP-date Retry-After; nil means time.Now.
	Now func() time.Time
	// Implausible counts each decoded value nulled by internal/bounds, by
	// provider and field (e.g. a metric); nil counts nothing.
	Implausible func(provider, field string)
}

// Client is the extprovider adapter. It is safe for concurrent use.
type Client struct {
	http *upstream.Client
}

var _ market.CoinProvider = (*Client)(nil)

const name = "extprovider"

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	key := strings.TrimSpace(cfg.APIKey)
	if cfg.Pro && key == "" {
		return nil, errors.New("extprovider: Pro requires an APIKey")
	}
	base := DefaultBaseURL
	header := DemoKeyHeader
	if cfg.Pro {
		base, header = DefaultProBaseURL, ProKeyHeader
	}
	h := http.Header{}
	if key != "" {
		h.Set(header, key)
	}
	hc, err := upstream.New(upstream.Options{
		Name:           name,
		BaseURL:        cfg.BaseURL,
		DefaultBaseURL: base,
		HTTPClient:     cfg.HTTPClient,
		Timeout:        cfg.Timeout,
		Logger:         cfg.Logger,
		Header:         h,
		SecretHeaders:  []string{DemoKeyHeader, ProKeyHeader},
		MaxBody:        cfg.MaxBody,
		Now:            cfg.Now,
		Implausible:    cfg.Implausible,
	})
	if err != nil {
		return nil, err
	}
	return &Client{http: hc}, nil
}

// Source returns asset.SourceExtProvider.
func (c *Client) Source() string { return asset.SourceExtProvider }

// coinPath returns /coins/{id} followed by suffix, or an error wrapping
// market.ErrNotFound for an id that cannot exist upstream (blank, too
// long, a dot segment or control characters); such ids are never sent.
func coinPath(id, suffix string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" || id == "." || id == ".." || len(id) > maxIDLen || strings.IndexFunc(id, unicode.IsControl) >= 0 {
		return "", fmt.Errorf("%s: coin id %.40q: %w", name, id, market.ErrNotFound)
	}
	return "/coins/" + upstream.PathSegment(id) + suffix, nil
}

// get GETs path and maps a 404 onto market.ErrNotFound (and not
// market.ErrUpstream: the provider answered, it does not know the id).
func (c *Client) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	body, err := c.http.Get(ctx, path, q)
	if upstream.IsStatus(err, http.StatusNotFound) {
		return nil, fmt.Errorf("%s: GET %s: HTTP 404: %w", name, path, market.ErrNotFound)
	}
	return body, err
}

// parseTime reads an RFC 3339 timestamp ("2024-03-14T07:10:36.635Z",
// "2026-05-18T13:37:29+00:00") as UTC; anything else is the zero time.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// httpURL returns s when it is an absolute http(s) URL, else "".
func httpURL(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return s
}
