// Package tokenmeta is the adapter for a Jupiter Tokens v2 compatible API.
// It implements market.MetadataProvider with GET /tokens/v2/search?query=,
// which takes free text or up to 100 comma-separated mints. An API key,
// when configured, is sent as x-api-key. docs/providers.md has the field
// mapping.
package tokenmeta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/metadata"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// DefaultBaseURL is Jupiter's API host; the adapter appends
// /tokens/v2/search.
const DefaultBaseURL = "https://api.jup.ag"

// Limits and defaults.
const (
	// MintsPerCall is the most mints one search call takes.
	MintsPerCall       = 100
	DefaultConcurrency = 2
	// DefaultSearchLimit is used when Search gets a limit <= 0.
	DefaultSearchLimit = 20
	// MaxSearchLimit bounds Search's limit.
	MaxSearchLimit = 100
	// MaxQueryLen bounds a free-text query (longer ones are cut).
	MaxQueryLen = 100

	searchPath = "/tokens/v2/search"
)

// Config configures a Client.
type Config struct {
	// BaseURL of the API; empty means DefaultBaseURL.
	BaseURL string
	// APIKey, optional, is sent as x-api-key. It is never logged.
	APIKey string
	// HTTPClient performs the calls; nil means a new http.Client.
	HTTPClient *http.Client
	// Timeout bounds each HTTP call; 0 means 15 s.
	Timeout time.Duration
	// Logger receives debug records per call and warnings on failures;
	// nil discards.
	Logger *slog.Logger
	// Concurrency bounds the parallel calls of one Lookup with more than
	// 100 mints; 0 means DefaultConcurrency.
	Concurrency int
	// MaxBody caps a response body; 0 means 8 MiB.
	MaxBody int64
	// Now is the clock for HTTP-date Retry-After; nil means time.Now.
	Now func() time.Time
}

// Client is the token metadata adapter. It is safe for concurrent use.
type Client struct {
	http        *upstream.Client
	log         *slog.Logger
	concurrency int
}

var _ market.MetadataProvider = (*Client)(nil)

const name = "tokenmeta"

// New validates cfg and returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Concurrency < 0 {
		return nil, errors.New("tokenmeta: Concurrency must not be negative")
	}
	h := http.Header{}
	if k := strings.TrimSpace(cfg.APIKey); k != "" {
		h.Set("x-api-key", k)
	}
	hc, err := upstream.New(upstream.Options{
		Name:           name,
		BaseURL:        cfg.BaseURL,
		DefaultBaseURL: DefaultBaseURL,
		HTTPClient:     cfg.HTTPClient,
		Timeout:        cfg.Timeout,
		Logger:         cfg.Logger,
		Header:         h,
		SecretHeaders:  []string{"x-api-key"},
		MaxBody:        cfg.MaxBody,
		Now:            cfg.Now,
	})
	if err != nil {
		return nil, err
	}
	c := &Client{http: hc, log: hc.Logger(), concurrency: cfg.Concurrency}
	if c.concurrency == 0 {
		c.concurrency = DefaultConcurrency
	}
	return c, nil
}

// searchToken is one entry of a search answer (the fields read).
type searchToken struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Symbol     string          `json:"symbol"`
	Icon       string          `json:"icon"`
	Decimals   upstream.Number `json:"decimals"`
	IsVerified *bool           `json:"isVerified"`
	Tags       []string        `json:"tags"`
}

func (t searchToken) meta() market.TokenMeta {
	verified := slices.Contains(t.Tags, "verified")
	if t.IsVerified != nil {
		verified = *t.IsVerified
	}
	// Upstream metadata is hostile until cleaned (control and bidi
	// characters, length caps, http(s) logos only).
	m := metadata.Clean(metadata.Token{Symbol: t.Symbol, Name: t.Name, LogoURI: t.Icon, Decimals: t.Decimals.IntPtr()})
	return market.TokenMeta{
		Mint:     t.ID,
		Symbol:   m.Symbol,
		Name:     m.Name,
		Decimals: m.Decimals,
		LogoURI:  m.LogoURI,
		Verified: verified,
	}
}

var errNotArray = errors.New("expected a JSON array of tokens")

// parseSearch decodes a /tokens/v2/search answer (a JSON array; null is
// an empty answer). Entries without an id and repeated ids are dropped.
func parseSearch(body []byte) ([]market.TokenMeta, error) {
	t := bytes.TrimSpace(body)
	if string(t) == "null" {
		return nil, nil
	}
	if len(t) == 0 || t[0] != '[' {
		return nil, upstream.Malformed(name, "search", errNotArray)
	}
	var ts []searchToken
	if err := json.Unmarshal(t, &ts); err != nil {
		return nil, upstream.Malformed(name, "search", err)
	}
	out := make([]market.TokenMeta, 0, len(ts))
	seen := make(map[string]bool, len(ts))
	for _, tok := range ts {
		if tok.ID == "" || seen[tok.ID] {
			continue
		}
		seen[tok.ID] = true
		out = append(out, tok.meta())
	}
	return out, nil
}

func (c *Client) search(ctx context.Context, query string) ([]market.TokenMeta, error) {
	body, err := c.http.Get(ctx, searchPath, url.Values{"query": {query}})
	if upstream.IsStatus(err, http.StatusNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseSearch(body)
}

// Lookup returns the metadata of mints, searching by up to 100
// comma-separated mints per call. Only exact id matches count; unknown
// and malformed mints are absent. A rate limit (429) is returned; other
// failures of some calls leave their mints absent and are logged, and
// only when every call failed is the error returned. On error the map
// still holds the mints that succeeded.
func (c *Client) Lookup(ctx context.Context, mints []string) (map[string]market.TokenMeta, error) {
	var valid []string
	for _, m := range upstream.Dedupe(mints) {
		if upstream.ValidMint(m) {
			valid = append(valid, m)
		}
	}
	chunks := upstream.Chunk(valid, MintsPerCall)
	got := make([][]market.TokenMeta, len(chunks))
	errs := upstream.ForEach(ctx, len(chunks), c.concurrency, func(ctx context.Context, i int) error {
		ms, err := c.search(ctx, strings.Join(chunks[i], ","))
		got[i] = ms
		return err
	})
	out := make(map[string]market.TokenMeta, len(valid))
	for i, chunk := range chunks {
		want := make(map[string]bool, len(chunk))
		for _, m := range chunk {
			want[m] = true
		}
		for _, tm := range got[i] {
			if want[tm.Mint] {
				if _, dup := out[tm.Mint]; !dup {
					out[tm.Mint] = tm
				}
			}
		}
	}
	return out, upstream.SettleBatch(ctx, c.log, name, errs)
}

// Search returns up to limit (default 20, at most 100) tokens matching
// query, in the API's order. The query is trimmed and cut to 100
// characters; an empty query returns nothing without a call.
func (c *Client) Search(ctx context.Context, query string, limit int) ([]market.TokenMeta, error) {
	query = strings.TrimSpace(query)
	if r := []rune(query); len(r) > MaxQueryLen {
		query = string(r[:MaxQueryLen])
	}
	if query == "" {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	ms, err := c.search(ctx, query)
	if err != nil {
		return nil, err
	}
	if len(ms) > limit {
		ms = ms[:limit:limit]
	}
	return ms, nil
}
