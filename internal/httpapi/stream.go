package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/events"
)

// GET /v1/stream: server-sent events (docs/events.md). The handler
// parses, authorizes (scope and per-key stream limits) and writes; the
// replay, fan-out and overflow rules are internal/events'.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) error {
	q := query(r)
	topics, err := events.ParseTopics(q.Get("topics"))
	if err != nil {
		var te *events.TopicError
		if errors.As(err, &te) {
			d := apierr.Details{"code": te.Code, "param": "topics"}
			if te.Topic != "" {
				d["topic"] = te.Topic
			}
			return apierr.New(apierr.BadRequest, te.Msg).WithDetails(d)
		}
		return err
	}
	sess := &events.Session{}
	cursor := r.Header.Get("Last-Event-Id")
	param := "Last-Event-ID"
	if cursor == "" {
		cursor, param = q.Get("since"), "since"
	}
	if cursor != "" {
		n, err := strconv.ParseUint(strings.TrimSpace(cursor), 10, 64)
		if err != nil {
			return badParam(param, param+" must be an event id (a non-negative integer)", nil)
		}
		sess.Resume, sess.After = true, n
	}
	k := info(r.Context()).key
	sub, err := s.d.Stream.Subscribe(k.ID, topics)
	switch {
	case errors.Is(err, events.ErrTooManyConns):
		w.Header().Set("Retry-After", "5")
		return apierr.New(apierr.RateLimited, "Too many open streams for this key").WithDetails(apierr.Details{"code": "rate_limited", "limit": "stream_connections"})
	case errors.Is(err, events.ErrTooManyTopics):
		w.Header().Set("Retry-After", "5")
		return apierr.New(apierr.RateLimited, "Too many stream topics for this key").WithDetails(apierr.Details{"code": "rate_limited", "limit": "stream_topics"})
	case err != nil:
		return err
	}
	defer sub.Close()
	sess.Sub = sub
	tick, stop := s.heartbeat()
	defer stop()
	sess.Heartbeat = tick

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	out := &sseSink{w: w, rc: http.NewResponseController(w), timeout: s.d.StreamWriteTimeout}
	// The server's read timeout would end the connection (and cancel
	// the request) while the stream is open: a stream has no deadline;
	// each write has its own.
	_ = out.rc.SetReadDeadline(time.Time{})
	if out.timeout <= 0 {
		out.timeout = 30 * time.Second
	}
	err = sess.Run(r.Context(), out)
	if errors.Is(err, events.ErrOverflow) {
		s.d.Log.DebugContext(r.Context(), "stream client cut: overflow", "request_id", requestID(r.Context()), "key", k.ID)
	}
	return nil // the response started: nothing more can be sent
}

func (s *Server) heartbeat() (<-chan time.Time, func()) {
	if s.d.StreamHeartbeat != nil {
		return s.d.StreamHeartbeat()
	}
	t := time.NewTicker(events.DefaultHeartbeat)
	return t.C, t.Stop
}

// sseSink writes a stream's messages with a deadline per write.
type sseSink struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
}

func (o *sseSink) Write(p []byte) error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout)) // unsupported by a test recorder: fine
	_, err := o.w.Write(p)
	return err
}

func (o *sseSink) Flush() error {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	return o.rc.Flush()
}
