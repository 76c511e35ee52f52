// Package client is a Go client of the assetd HTTP API, written over its
// OpenAPI contract (api/openapi.yaml): one typed method per operation,
// whose response types are the types generated from the contract (package
// assetdapi: Asset, Variant, Market, … typed all the way down), errors that
// expose the status, the envelope's `_tag` and `details.code` and the
// response's x-request-id, and the spec's retry rule. Client.API gives the
// generated client itself (one method per operation, responses parsed by
// status), behind the same key and retry rule.
//
// Retries: a 429 and a transient 5xx (500, 502, 503, 504) are retried at
// most MaxRetries (4) times, attempt n (0-based) waiting 250 ms × 2^n plus
// 0–149 ms of jitter, or the response's Retry-After when that is longer.
// Other statuses (400, 401, 403, 404 included) are never retried. The
// context bounds the whole call, waits included.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/client/assetdapi"
)

// Retry rule constants (the spec's reference client).
const (
	MaxRetries  = 4
	BaseBackoff = 250 * time.Millisecond
	MaxJitter   = 150 * time.Millisecond // exclusive: 0–149 ms
)

// Client calls one assetd server with one API key. It is safe for
// concurrent use.
type Client struct {
	base   *url.URL
	key    string
	http   *http.Client
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func() time.Duration
	api    *assetdapi.ClientWithResponses
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default http.DefaultClient).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithSleeper replaces the wait between attempts (tests inject one that
// records the durations instead of sleeping). It must return ctx.Err()
// when ctx ends first.
func WithSleeper(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.sleep = sleep }
}

// WithJitter replaces the jitter source; it must return a duration in
// [0, MaxJitter).
func WithJitter(jitter func() time.Duration) Option { return func(c *Client) { c.jitter = jitter } }

// New returns a client of the server at baseURL (e.g.
// "https://assets.example.com") sending apiKey as x-api-key (empty: no key,
// for the public routes).
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("client: invalid base URL %q", baseURL)
	}
	c := &Client{base: u, key: apiKey, http: http.DefaultClient, sleep: sleepCtx,
		jitter: func() time.Duration {
			return time.Duration(rand.Int64N(int64(MaxJitter/time.Millisecond))) * time.Millisecond
		}}
	for _, o := range opts {
		o(c)
	}
	api, err := assetdapi.NewClientWithResponses(u.String(), assetdapi.WithHTTPClient(retryDoer{c}))
	if err != nil {
		return nil, fmt.Errorf("client: generated client: %w", err)
	}
	c.api = api
	return c, nil
}

// API returns the client generated from the contract (package assetdapi):
// one method per operation (GetAssetWithResponse, …) whose result holds
// the typed body of each documented status (JSON200, JSON404, …). Its
// requests carry c's API key and follow the same retry rule as c's methods
// (429 and transient 5xx, MaxRetries, Backoff, Retry-After, the context
// bounding the waits); the last answer is returned as the server sent it.
func (c *Client) API() *assetdapi.ClientWithResponses { return c.api }

// retryDoer is the generated client's HTTP doer: it adds the API key and
// retries by the rule, replaying the request body (the generated client's
// bodies are in memory, so GetBody is set).
type retryDoer struct{ c *Client }

func (d retryDoer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		r := req.Clone(ctx)
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("client: %s %s: replay body: %w", req.Method, req.URL.Path, err)
			}
			r.Body = body
		}
		if d.c.key != "" {
			r.Header.Set("x-api-key", d.c.key)
		}
		if r.Header.Get("Accept") == "" {
			r.Header.Set("Accept", "application/json")
		}
		resp, err := d.c.http.Do(r)
		if err != nil {
			return nil, fmt.Errorf("client: %s %s: %w", req.Method, req.URL.Path, err)
		}
		replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		if !Retryable(resp.StatusCode) || attempt >= MaxRetries || !replayable {
			return resp, nil
		}
		wait := Backoff(attempt, d.c.jitter(), retryAfter(resp.Header))
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if werr := d.c.sleep(ctx, wait); werr != nil {
			return nil, fmt.Errorf("client: %s %s: waiting to retry: %w (last answer: %d)", req.Method, req.URL.Path, werr, resp.StatusCode)
		}
	}
}

// retryAfter is a response's Retry-After in seconds (0 when absent or not
// a positive integer).
func retryAfter(h http.Header) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After"))); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Error is a non-2xx answer of the server.
type Error struct {
	Status    int
	Tag       string         // the envelope's _tag, e.g. BadRequestError
	Code      string         // details.code when present, e.g. invalid_mint
	Message   string         // safe to show
	Details   map[string]any // the whole details object (nil when absent or a string)
	RequestID string         // the response's x-request-id, for support
	// RetryAfter is the response's Retry-After (0 when absent).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	s := fmt.Sprintf("assetd: %d %s", e.Status, e.Tag)
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RequestID != "" {
		s += " [request " + e.RequestID + "]"
	}
	return s
}

// Retryable reports whether the rule retries this status: 429 and the
// transient 5xx.
func Retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Backoff is the wait before retry attempt n (0-based) given the jitter
// and the server's Retry-After: 250 ms × 2^n + jitter, or Retry-After
// when that is longer.
func Backoff(n int, jitter, retryAfter time.Duration) time.Duration {
	d := BaseBackoff<<n + jitter
	return max(d, retryAfter)
}

// call sends one request of an operation and decodes its success body.
func call[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any) (*T, error) {
	var out T
	if err := c.do(ctx, method, path, q, body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// do sends one logical request, retrying by the rule, and decodes a 2xx
// JSON body into out.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("client: encode %s %s body: %w", method, path, err)
		}
	}
	// path's variable segments are already escaped (url.PathEscape).
	u := c.base.String() + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, method, u, payload, out)
		var apiErr *Error
		if !errors.As(err, &apiErr) || !Retryable(apiErr.Status) || attempt >= MaxRetries {
			return err
		}
		if werr := c.sleep(ctx, Backoff(attempt, c.jitter(), apiErr.RetryAfter)); werr != nil {
			return fmt.Errorf("client: %s %s: waiting to retry: %w (last answer: %w)", method, path, werr, err)
		}
	}
}

func (c *Client) once(ctx context.Context, method, u string, payload []byte, out any) error {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("client: build request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("x-api-key", c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("client: %s %s: read body: %w", method, req.URL.Path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp, raw)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("client: %s %s: decode body: %w", method, req.URL.Path, err)
	}
	return nil
}

func decodeError(resp *http.Response, raw []byte) *Error {
	e := &Error{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id"), RetryAfter: retryAfter(resp.Header)}
	var env struct {
		Error struct {
			Tag     string          `json:"_tag"`
			Message string          `json:"message"`
			Details json.RawMessage `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Error.Tag == "" {
		// Not the envelope (a proxy's page, say): keep the status.
		e.Message = http.StatusText(resp.StatusCode)
		return e
	}
	e.Tag, e.Message = env.Error.Tag, env.Error.Message
	var det map[string]any
	if json.Unmarshal(env.Error.Details, &det) == nil && det != nil {
		e.Details = det
		e.Code, _ = det["code"].(string)
	}
	return e
}

func setString(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func setInt(q url.Values, name string, v *int64) {
	if v != nil {
		q.Set(name, strconv.FormatInt(*v, 10))
	}
}

func setBool(q url.Values, name string, v *bool) {
	if v != nil {
		q.Set(name, strconv.FormatBool(*v))
	}
}

// Ptr returns a pointer to v, for the optional integer and boolean
// parameters.
func Ptr[T any](v T) *T { return &v }

// TradeEvent is one trade of POST /v1/internal/trades.
type TradeEvent struct {
	Signature   string  `json:"signature"`
	Slot        int64   `json:"slot,omitempty"`
	BlockTime   int64   `json:"blockTime"`
	Mint        string  `json:"mint"`
	Side        string  `json:"side"`
	TokenAmount float64 `json:"tokenAmount"`
	USDAmount   float64 `json:"usdAmount"`
	PriceUSD    float64 `json:"priceUsd"`
	Wallet      string  `json:"wallet,omitempty"`
	Venue       string  `json:"venue,omitempty"`
	FlowSource  string  `json:"flowSource,omitempty"`
	FeeUSD      float64 `json:"feeUsd"`
	IsBot       bool    `json:"isBot"`
	// Leg is the trade's 0-based order among its transaction's swap legs;
	// (Signature, Leg) identifies a trade. Pool and Program name the pool
	// and DEX program that filled it (optional).
	Leg     int    `json:"leg,omitempty"`
	Pool    string `json:"pool,omitempty"`
	Program string `json:"program,omitempty"`
}
