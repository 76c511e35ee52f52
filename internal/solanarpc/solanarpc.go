// Package solanarpc is a small Solana JSON-RPC 2.0 client: one Call per
// request under a shared request budget (requests per second), retrying
// transport failures, timeouts, HTTP 5xx and 429 (honouring Retry-After)
// with exponential backoff and jitter. JSON-RPC errors come back as
// *RPCError; the "block not available" family is recognised by
// BlockUnavailable and Skipped. It knows no method: callers name them.
package solanarpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/assetd/assetd/internal/ctxwait"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Solana's implementation-defined server errors the trade source cares
// about (solana rpc-client-api custom_error.rs).
const (
	// CodeBlockNotAvailable: the node has not got the block (yet).
	CodeBlockNotAvailable = -32004
	// CodeSlotSkipped: "Slot was skipped, or missing due to ledger jump to
	// recent snapshot" — skipped OR missing on this node.
	CodeSlotSkipped = -32007
	// CodeLongTermStorageSlotSkipped: "Slot was skipped, or missing in
	// long-term storage" — skipped OR missing in the provider's archive.
	CodeLongTermStorageSlotSkipped = -32009
	// CodeBlockStatusNotAvailableYet: the block's commitment status is not
	// known yet.
	CodeBlockStatusNotAvailableYet = -32014
)

// RPCError is a JSON-RPC error object answered by the node.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Method is the call that failed (not part of the wire object).
	Method string `json:"-"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("solana rpc %s: error %d: %s", e.Method, e.Code, e.Message)
}

// BlockUnavailable reports whether err is one of the "block not
// available" errors (-32004, -32007, -32009, -32014): the block could not
// be served now and is worth asking for again later. Note that -32007 and
// -32009 mean "skipped or missing": a slot getBlocks listed as produced is
// missing, not skipped, so callers must not take them as proof of a skip.
func BlockUnavailable(err error) bool {
	var re *RPCError
	if !errors.As(err, &re) {
		return false
	}
	switch re.Code {
	case CodeBlockNotAvailable, CodeSlotSkipped, CodeLongTermStorageSlotSkipped, CodeBlockStatusNotAvailableYet:
		return true
	}
	return false
}

// Skipped reports whether err is -32007 or -32009 (skipped or missing).
func Skipped(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && (re.Code == CodeSlotSkipped || re.Code == CodeLongTermStorageSlotSkipped)
}

// HTTPError is a non-2xx answer that carried no JSON-RPC error.
type HTTPError struct {
	Status     int
	RetryAfter time.Duration // from a 429's or 503's Retry-After (0: none)
	Body       string        // the first bytes of the body
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("solana rpc: HTTP %d: %s", e.Status, e.Body)
}

// Sleeper waits d or until ctx ends (tests inject one that does not sleep).
type Sleeper func(ctx context.Context, d time.Duration) error

// Options configure a Client. Zero values take the defaults.
type Options struct {
	// HTTP is the transport (nil: a client without its own timeout; each
	// attempt is bounded by Timeout).
	HTTP *http.Client
	// RPS is the request budget per second shared by every call of this
	// client (0: 10; negative: unlimited). Burst defaults to max(1, RPS).
	RPS   float64
	Burst int
	// Timeout bounds one attempt (0: 30 s).
	Timeout time.Duration
	// Attempts is how many times a retryable failure is tried in all
	// (0: 5). JSON-RPC errors are never retried here: they are answers.
	Attempts int
	// BaseBackoff and MaxBackoff bound the exponential backoff (0: 250 ms
	// and 10 s); each wait is drawn uniformly from [d/2, d] (jitter).
	BaseBackoff, MaxBackoff time.Duration
	// MaxRetryAfter caps a server's Retry-After (0: 60 s).
	MaxRetryAfter time.Duration
	// Sleep waits between attempts (nil: a timer). Jitter draws in [0,1)
	// (nil: math/rand/v2).
	Sleep  Sleeper
	Jitter func() float64
	// Header is added to every request (provider API keys in headers).
	Header http.Header
}

// Client calls one JSON-RPC endpoint. It is safe for concurrent use.
type Client struct {
	url   string
	opt   Options
	lim   *rate.Limiter
	id    atomic.Uint64
	stats Stats
}

// Stats counts a client's requests (read with Snapshot).
type Stats struct {
	Requests, Retries, RateLimited, Failures atomic.Int64
}

// StatsSnapshot is a copy of Stats.
type StatsSnapshot struct {
	Requests, Retries, RateLimited, Failures int64
}

// New returns a client of the endpoint url.
func New(url string, opt Options) *Client {
	if opt.HTTP == nil {
		opt.HTTP = &http.Client{}
	}
	if opt.RPS == 0 {
		opt.RPS = 10
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.Attempts <= 0 {
		opt.Attempts = 5
	}
	if opt.BaseBackoff <= 0 {
		opt.BaseBackoff = 250 * time.Millisecond
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = 10 * time.Second
	}
	if opt.MaxRetryAfter <= 0 {
		opt.MaxRetryAfter = time.Minute
	}
	if opt.Sleep == nil {
		opt.Sleep = ctxwait.Sleep
	}
	if opt.Jitter == nil {
		opt.Jitter = rand.Float64
	}
	lim := rate.NewLimiter(rate.Inf, 0)
	if opt.RPS > 0 {
		burst := opt.Burst
		if burst <= 0 {
			burst = max(1, int(opt.RPS))
		}
		lim = rate.NewLimiter(rate.Limit(opt.RPS), burst)
	}
	return &Client{url: url, opt: opt, lim: lim}
}

// Stats returns the request counts so far.
func (c *Client) Stats() StatsSnapshot {
	return StatsSnapshot{c.stats.Requests.Load(), c.stats.Retries.Load(), c.stats.RateLimited.Load(), c.stats.Failures.Load()}
}

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      uint64 `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params,omitempty"`
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *RPCError       `json:"error"`
}

// Call invokes method with params and decodes the result into result
// (a pointer; a *json.RawMessage keeps the bytes as they came). A
// JSON-RPC error is returned as *RPCError at once; transport failures,
// timeouts, 5xx and 429 are retried (Options.Attempts) after a backoff,
// or the server's Retry-After. Every attempt takes one request from the
// budget.
func (c *Client) Call(ctx context.Context, method string, params []any, result any) error {
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: c.id.Add(1), Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("solana rpc %s: encode params: %w", method, err)
	}
	var last error
	for attempt := 0; attempt < c.opt.Attempts; attempt++ {
		if attempt > 0 {
			c.stats.Retries.Add(1)
			if err := c.opt.Sleep(ctx, c.wait(attempt, last)); err != nil {
				return fmt.Errorf("solana rpc %s: %w (last: %v)", method, err, last)
			}
		}
		if err := c.lim.Wait(ctx); err != nil {
			return fmt.Errorf("solana rpc %s: request budget: %w", method, err)
		}
		raw, err := c.post(ctx, body)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("solana rpc %s: %w", method, ctx.Err())
			}
			last = err
			if retryable(err) {
				continue
			}
			c.stats.Failures.Add(1)
			return fmt.Errorf("solana rpc %s: %w", method, err)
		}
		var resp response
		if err := json.Unmarshal(raw, &resp); err != nil {
			c.stats.Failures.Add(1)
			return fmt.Errorf("solana rpc %s: decode response: %w", method, err)
		}
		if resp.Error != nil {
			resp.Error.Method = method
			return resp.Error
		}
		if result != nil {
			if err := json.Unmarshal(resp.Result, result); err != nil {
				c.stats.Failures.Add(1)
				return fmt.Errorf("solana rpc %s: decode result: %w", method, err)
			}
		}
		return nil
	}
	c.stats.Failures.Add(1)
	return fmt.Errorf("solana rpc %s: gave up after %d attempts: %w", method, c.opt.Attempts, last)
}

// wait is the pause before attempt (1-based retries): the server's
// Retry-After when it sent one, else exponential backoff with jitter.
func (c *Client) wait(attempt int, last error) time.Duration {
	var he *HTTPError
	if errors.As(last, &he) && he.RetryAfter > 0 {
		return min(he.RetryAfter, c.opt.MaxRetryAfter)
	}
	d := c.opt.BaseBackoff << (attempt - 1)
	if d <= 0 || d > c.opt.MaxBackoff {
		d = c.opt.MaxBackoff
	}
	return d/2 + time.Duration(c.opt.Jitter()*float64(d/2))
}

// transportError is a failure before an HTTP answer (or a timeout).
type transportError struct{ err error }

func (e transportError) Error() string { return e.err.Error() }
func (e transportError) Unwrap() error { return e.err }

func retryable(err error) bool {
	var te transportError
	if errors.As(err, &te) {
		return true
	}
	var he *HTTPError
	return errors.As(err, &he) && (he.Status == http.StatusTooManyRequests || he.Status >= 500)
}

// maxBody bounds a response body (a full mainnet block is a few MB).
const maxBody = 256 << 20

func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	c.stats.Requests.Add(1)
	actx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.opt.Header {
		req.Header[k] = v
	}
	resp, err := c.opt.HTTP.Do(req)
	if err != nil {
		return nil, transportError{err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, transportError{err}
	}
	if resp.StatusCode/100 != 2 {
		// Some providers answer a JSON-RPC error with a 4xx/5xx status:
		// an error object is an answer, not a transport failure.
		if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
			var r response
			if json.Unmarshal(raw, &r) == nil && r.Error != nil {
				return raw, nil
			}
		}
		he := &HTTPError{Status: resp.StatusCode, Body: string(raw[:min(len(raw), 200)])}
		if resp.StatusCode == http.StatusTooManyRequests {
			c.stats.RateLimited.Add(1)
		}
		he.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return nil, he
	}
	return raw, nil
}

// parseRetryAfter reads delta-seconds or an HTTP date (0: absent or bad).
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
