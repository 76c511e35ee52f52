package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// StreamEvent is one event of GET /v1/stream (docs/events.md).
type StreamEvent struct {
	ID    uint64          `json:"id"`
	Type  string          `json:"type"` // price, advisory, list, trending, depeg
	Topic string          `json:"topic"`
	Time  time.Time       `json:"time"`
	Data  json.RawMessage `json:"data"`
}

// StreamOptions tune Stream; nil takes the defaults.
type StreamOptions struct {
	// LastEventID resumes after this event id ("": live from now).
	LastEventID string
	// OnReset is called when the cursor was older than the server's
	// retention window: events were missed, resynchronise (for example
	// re-read the prices). The stream continues from the reset's id.
	OnReset func(lastEventID string)
	// OnReconnect is called before each reconnection with the error that
	// ended the previous connection (nil: none).
	OnReconnect func(err error)
	// MaxReconnects bounds consecutive reconnections that receive nothing
	// (0: until ctx ends).
	MaxReconnects int
}

// ErrStreamOverflow is the cause Stream reconnects after when the server
// cut the connection because the client fell too far behind.
var ErrStreamOverflow = errors.New("client: stream overflow: the client fell behind and was disconnected")

// Stream opens GET /v1/stream for topics (price:<mint>, advisories,
// list:<slug>, trending, depeg) and calls fn for every event, in order,
// until ctx ends or fn returns an error (which Stream returns). A dropped
// connection, an overflow, a 429 or a transient 5xx reconnects after the
// client's backoff with Last-Event-ID set to the last event received, so
// no event inside the server's window is missed or repeated; other
// refusals (400, 401, 403) return their *Error.
func (c *Client) Stream(ctx context.Context, topics []string, opts *StreamOptions, fn func(StreamEvent) error) error {
	if opts == nil {
		opts = &StreamOptions{}
	}
	if fn == nil {
		fn = func(StreamEvent) error { return nil }
	}
	q := url.Values{}
	q.Set("topics", strings.Join(topics, ","))
	u := c.base.String() + "/v1/stream?" + q.Encode()
	last := opts.LastEventID
	for attempt := 0; ; attempt++ {
		got, err := c.streamOnce(ctx, u, &last, opts, fn)
		if got {
			attempt = 0
		}
		var apiErr *Error
		var cbErr callbackError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &cbErr):
			return cbErr.err
		case errors.As(err, &apiErr) && !Retryable(apiErr.Status):
			return err
		case errors.Is(err, errNotStream):
			return err
		}
		if opts.MaxReconnects > 0 && attempt >= opts.MaxReconnects {
			return fmt.Errorf("client: stream: %d reconnections without an event: %w", attempt, err)
		}
		if opts.OnReconnect != nil {
			opts.OnReconnect(err)
		}
		var retryAfter time.Duration
		if apiErr != nil {
			retryAfter = apiErr.RetryAfter
		}
		if errors.Is(err, ErrStreamOverflow) && attempt == 0 {
			continue // reconnect at once: the replay catches up
		}
		if werr := c.sleep(ctx, Backoff(min(attempt, 6), c.jitter(), retryAfter)); werr != nil {
			return werr
		}
	}
}

var errNotStream = errors.New("client: GET /v1/stream did not answer text/event-stream")

type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// streamOnce reads one connection; got says an event or reset arrived.
func (c *Client) streamOnce(ctx context.Context, u string, last *string, opts *StreamOptions, fn func(StreamEvent) error) (got bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("client: build request: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if c.key != "" {
		req.Header.Set("x-api-key", c.key)
	}
	if *last != "" {
		req.Header.Set("Last-Event-ID", *last)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("client: GET /v1/stream: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return false, decodeError(resp, raw)
	}
	if ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) != "text/event-stream" {
		return false, errNotStream
	}
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	var id, event string
	var data strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return got, fmt.Errorf("client: stream: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line != "" {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "id":
				id = value
			case "event":
				event = value
			case "data":
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.WriteString(value)
			}
			continue
		}
		// A blank line ends a message.
		switch event {
		case "":
			// a comment (heartbeat) or nothing
		case "reset":
			got = true
			if id != "" {
				*last = id
			}
			if opts.OnReset != nil {
				opts.OnReset(*last)
			}
		case "overflow":
			return got, ErrStreamOverflow
		default:
			var ev StreamEvent
			if err := json.Unmarshal([]byte(data.String()), &ev); err != nil {
				return got, fmt.Errorf("client: stream: event %s: %w", id, err)
			}
			if id != "" {
				if n, err := strconv.ParseUint(id, 10, 64); err == nil {
					ev.ID = n
				}
				*last = id
			}
			got = true
			if err := fn(ev); err != nil {
				return got, callbackError{err}
			}
		}
		id, event = "", ""
		data.Reset()
	}
}
