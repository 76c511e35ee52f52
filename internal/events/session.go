package events

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sink is where a stream session writes: Write one message, Flush it to
// the client. The HTTP handler gives one over its ResponseWriter (with a
// write deadline per message).
type Sink interface {
	Write(p []byte) error
	Flush() error
}

// Session is one client's stream: the replay of what it missed, then the
// live frames of its subscription, heartbeats while idle, and a final
// overflow message when it fell behind.
type Session struct {
	Sub *Sub
	// Resume: the client sent a cursor (Last-Event-ID or ?since=); After
	// is it. Without one the stream is live from the subscription's start.
	Resume bool
	After  uint64
	// Heartbeat ticks send a heartbeat comment (nil: none).
	Heartbeat <-chan time.Time
	// ReplayPage is the replay's read size (0: DefaultReplayPage).
	ReplayPage int
}

// ErrOverflow ends a session whose client fell behind (after the
// overflow message was written).
var ErrOverflow = errors.New("events: stream client fell behind; disconnected with overflow")

// Run writes until ctx ends, the sink fails or the client overflows.
func (s *Session) Run(ctx context.Context, out Sink) error {
	sub := s.Sub
	last := sub.From // the last event the client has (or need not have)
	if s.Resume {
		var err error
		if last, err = s.replay(ctx, out); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.Heartbeat:
			if err := out.Write(Heartbeat); err != nil {
				return err
			}
			if err := out.Flush(); err != nil {
				return err
			}
		case f, ok := <-sub.C():
			if !ok || sub.Overflowed() {
				return s.overflow(out, last)
			}
			if f.ID <= last {
				continue // replayed already (a cursor ahead of the hub's start)
			}
			if err := out.Write(f.Bytes); err != nil {
				return err
			}
			last = f.ID
			// Write what is queued now in the same flush.
			for n := len(sub.ch); n > 0 && !sub.Overflowed(); n-- {
				f, ok := <-sub.ch
				if !ok {
					break
				}
				if f.ID <= last {
					continue
				}
				if err := out.Write(f.Bytes); err != nil {
					return err
				}
				last = f.ID
			}
			if sub.Overflowed() {
				return s.overflow(out, last)
			}
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}

func (s *Session) overflow(out Sink, last uint64) error {
	_ = out.Write(ControlSSE(EventOverflow, 0, map[string]any{
		"lastEventId": fmt.Sprint(last),
		"message":     "the client fell too far behind and is disconnected; reconnect with Last-Event-ID to resume",
	}))
	_ = out.Flush()
	return ErrOverflow
}

// replay writes the subscription's events in (After, Sub.From] and returns
// the cursor live frames continue after. A cursor older than the log's
// window gets a reset message instead.
func (s *Session) replay(ctx context.Context, out Sink) (uint64, error) {
	sub := s.Sub
	match := Matcher(sub.topics)
	page := s.ReplayPage
	if page <= 0 {
		page = DefaultReplayPage
	}
	after := s.After
	if after >= sub.From {
		return after, nil // nothing the hub dispatched before; live skips ≤ after
	}
	src := sub.h.src
	for after < sub.From {
		evs, err := src.Since(ctx, after, page)
		if errors.Is(err, ErrExpired) {
			reset := ControlSSE(EventReset, sub.From, map[string]any{
				"lastEventId": fmt.Sprint(sub.From),
				"message":     "the cursor is older than the event log's retention window; resynchronise, then continue from this id",
			})
			return sub.From, out.Write(reset)
		}
		if err != nil {
			return 0, fmt.Errorf("stream replay: %w", err)
		}
		if len(evs) == 0 {
			break
		}
		for i := range evs {
			e := &evs[i]
			if e.ID > sub.From {
				return sub.From, nil
			}
			after = e.ID
			if match(e.Topic) {
				if err := out.Write(EncodeSSE(e)); err != nil {
					return 0, err
				}
			}
		}
	}
	return sub.From, nil
}
