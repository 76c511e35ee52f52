// Package upstream is the HTTP plumbing the provider adapters share: one
// GET with a per-call deadline, a size-capped body and one mapping of
// failures onto the market package's errors.
//
// Error contract of Client.Get:
//   - context deadline, cancellation or any transport failure: wraps
//     market.ErrUpstream (and the context error, so errors.Is(err,
//     context.DeadlineExceeded) works);
//   - HTTP 429: a *market.RateLimitedError carrying Retry-After;
//   - any other non-2xx status: a *StatusError, which wraps
//     market.ErrUpstream;
//   - a 2xx body larger than the cap: wraps market.ErrMalformed.
//
// Secret header values (API keys) are never logged and are redacted from
// the error-body snippets kept in StatusError.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assetd/assetd/internal/market"
)

// Defaults shared by the adapters.
const (
	// DefaultTimeout bounds one HTTP call when the adapter's Config says
	// nothing (the reference used 15-30 s per attempt).
	DefaultTimeout = 15 * time.Second
	// DefaultMaxBody caps a response body.
	DefaultMaxBody = 8 << 20
	// userAgent identifies the service to upstream APIs.
	userAgent = "assetd-provider/1"
	// snippetMax bounds the error-body excerpt kept in a StatusError.
	snippetMax = 256
	// DefaultMaxConns bounds the connections the default HTTP client of
	// a Client opens to one host: a call beyond it waits for one within
	// its deadline, so a slow upstream cannot make calls pile up into
	// open files (net/http's default has no bound).
	DefaultMaxConns = 64
)

// Options configure a Client.
type Options struct {
	// Name prefixes errors and log records ("marketa", ...).
	Name string
	// BaseURL is the API root (scheme and host, optionally a path
	// prefix); DefaultBaseURL is used when it is empty.
	BaseURL        string
	DefaultBaseURL string
	// HTTPClient performs the calls; nil means a client of its own
	// opening at most DefaultMaxConns connections per host. Its own
	// Timeout, if any, also applies.
	HTTPClient *http.Client
	// Timeout bounds one call; 0 means DefaultTimeout, negative none.
	Timeout time.Duration
	// Logger receives one debug record per call and a warning per failed
	// call; nil discards.
	Logger *slog.Logger
	// Header is sent on every request. Values of SecretHeaders are
	// treated as secrets: never logged, redacted from error snippets.
	Header        http.Header
	SecretHeaders []string
	// MaxBody caps a response body; 0 means DefaultMaxBody.
	MaxBody int64
	// Now is the clock used to turn an HTTP-date Retry-After into a
	// duration; nil means time.Now.
	Now func() time.Time
	// Implausible counts a value the adapter nulled (internal/bounds) by
	// provider name and field; nil counts nothing.
	Implausible func(provider, field string)
}

// Client performs GET requests against one upstream API.
type Client struct {
	name    string
	base    string // scheme://host[/prefix], no trailing slash
	hc      *http.Client
	timeout time.Duration
	log     *slog.Logger
	header  http.Header
	secrets []string
	maxBody int64
	now     func() time.Time
	// nulled reports each implausible value the adapter nulled.
	nulled func(provider, field string)
}

// New validates o and returns a Client.
func New(o Options) (*Client, error) {
	raw := strings.TrimSpace(o.BaseURL)
	if raw == "" {
		raw = o.DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: BaseURL %q must be an absolute http(s) URL", o.Name, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%s: BaseURL must not carry a query, fragment or user info", o.Name)
	}
	c := &Client{
		name:    o.Name,
		nulled:  o.Implausible,
		base:    strings.TrimRight(u.String(), "/"),
		hc:      o.HTTPClient,
		timeout: o.Timeout,
		log:     o.Logger,
		header:  o.Header.Clone(),
		maxBody: o.MaxBody,
		now:     o.Now,
	}
	if c.hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxConnsPerHost = DefaultMaxConns
		c.hc = &http.Client{Transport: t}
	}
	if len(o.SecretHeaders) > 0 {
		// net/http forwards custom headers (the API key) on redirects,
		// even to other hosts: refuse those; the 3xx then surfaces as a
		// StatusError.
		hc := *c.hc
		next := hc.CheckRedirect
		hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) > 0 && req.URL.Host != via[0].URL.Host {
				return http.ErrUseLastResponse
			}
			if next != nil {
				return next(req, via)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}
		c.hc = &hc
	}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.header == nil {
		c.header = http.Header{}
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxBody
	}
	if c.now == nil {
		c.now = time.Now
	}
	for _, h := range o.SecretHeaders {
		if v := c.header.Get(h); v != "" {
			c.secrets = append(c.secrets, v)
		}
	}
	return c, nil
}

// Now returns the client's clock reading.
func (c *Client) Now() time.Time { return c.now() }

// Logger returns the client's logger (never nil).
func (c *Client) Logger() *slog.Logger { return c.log }

// Nulled is the bounds.Report of the adapter: it counts a nulled
// implausible value under the provider's name (Options.Implausible) and
// logs it at debug level.
func (c *Client) Nulled(field string) {
	c.log.Debug("implausible upstream value nulled", "provider", c.name, "field", field)
	if c.nulled != nil {
		c.nulled(c.name, field)
	}
}

// StatusError is a non-2xx, non-429 answer. It wraps market.ErrUpstream.
type StatusError struct {
	Name    string
	Path    string
	Code    int
	Snippet string // start of the body, secrets redacted, control characters removed
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: GET %s: HTTP %d", e.Name, e.Path, e.Code)
	if e.Snippet != "" {
		msg += ": " + e.Snippet
	}
	return msg + ": " + market.ErrUpstream.Error()
}

// Unwrap makes errors.Is(err, market.ErrUpstream) hold.
func (e *StatusError) Unwrap() error { return market.ErrUpstream }

// IsStatus reports whether err is a StatusError with one of codes.
func IsStatus(err error, codes ...int) bool {
	var se *StatusError
	if !errors.As(err, &se) {
		return false
	}
	for _, c := range codes {
		if se.Code == c {
			return true
		}
	}
	return false
}

// Malformed wraps cause as market.ErrMalformed, naming the adapter and
// what was being decoded.
func Malformed(name, what string, cause error) error {
	if cause == nil {
		return fmt.Errorf("%s: %s: %w", name, what, market.ErrMalformed)
	}
	return fmt.Errorf("%s: %s: %w: %w", name, what, market.ErrMalformed, cause)
}

// Get requests base+path with query q and returns the 2xx body. path must
// start with "/" and be escaped already (see PathSegment).
func (c *Client) Get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	target := c.base + path
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: build request for %s: %w", c.name, path, err)
	}
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}

	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		err = c.transportErr(ctx, path, err)
		// Per-call failures are DEBUG: the market cache logs each
		// provider's state changes and one summary per warm cycle.
		c.log.LogAttrs(ctx, slog.LevelDebug, "provider call failed", slog.String("provider", c.name),
			slog.String("path", path), slog.Duration("took", time.Since(start)), slog.String("error", err.Error()))
		return nil, err
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		drain(resp.Body)
		ra := ParseRetryAfter(resp.Header.Get("Retry-After"), c.now())
		c.log.LogAttrs(ctx, slog.LevelDebug, "provider rate limited", slog.String("provider", c.name),
			slog.String("path", path), slog.Duration("retryAfter", ra))
		return nil, fmt.Errorf("%s: GET %s: %w", c.name, path, &market.RateLimitedError{RetryAfter: ra})
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		snippet := c.snippet(resp.Body)
		drain(resp.Body)
		se := &StatusError{Name: c.name, Path: path, Code: resp.StatusCode, Snippet: snippet}
		c.log.LogAttrs(ctx, slog.LevelDebug, "provider call failed", slog.String("provider", c.name),
			slog.String("path", path), slog.Int("status", resp.StatusCode), slog.Duration("took", time.Since(start)))
		return nil, se
	}

	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		err = c.transportErr(ctx, path, err)
		c.log.LogAttrs(ctx, slog.LevelDebug, "provider body read failed", slog.String("provider", c.name),
			slog.String("path", path), slog.String("error", err.Error()))
		return nil, err
	}
	if int64(len(body)) > c.maxBody {
		drain(resp.Body)
		c.log.LogAttrs(ctx, slog.LevelDebug, "provider body too large", slog.String("provider", c.name),
			slog.String("path", path), slog.Int64("limit", c.maxBody))
		return nil, Malformed(c.name, "GET "+path, fmt.Errorf("response body exceeds %d bytes", c.maxBody))
	}
	c.log.LogAttrs(ctx, slog.LevelDebug, "provider call", slog.String("provider", c.name),
		slog.String("path", path), slog.Int("status", resp.StatusCode), slog.Int("bytes", len(body)),
		slog.Duration("took", time.Since(start)))
	return body, nil
}

// transportErr wraps a failed round trip (or body read) as ErrUpstream,
// preferring the context's own error when the deadline or a cancellation
// caused it.
func (c *Client) transportErr(ctx context.Context, path string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: GET %s: %w: %w", c.name, path, market.ErrUpstream, cerr)
	}
	return fmt.Errorf("%s: GET %s: %w: %s", c.name, path, market.ErrUpstream, c.redact(errText(err)))
}

// errText strips the URL from a *url.Error so that only the cause stays.
func errText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func (c *Client) snippet(r io.Reader) string {
	// Read enough past the cut that a secret starting before it is whole,
	// redact, then cut.
	extra := 0
	for _, sec := range c.secrets {
		extra = max(extra, len(sec))
	}
	b, _ := io.ReadAll(io.LimitReader(r, int64(snippetMax+extra)))
	s := c.redact(string(b))
	if len(s) > snippetMax {
		s = s[:snippetMax]
	}
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return strings.TrimSpace(s)
}

func (c *Client) redact(s string) string {
	for _, sec := range c.secrets {
		s = strings.ReplaceAll(s, sec, "[redacted]")
	}
	return s
}

// drain reads a little of what is left so the connection can be reused.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<10)) }

// PathSegment escapes one path segment. Commas are kept literal: the APIs
// that take comma-separated lists in the path expect them unescaped.
func PathSegment(s string) string {
	return strings.ReplaceAll(url.PathEscape(s), "%2C", ",")
}
