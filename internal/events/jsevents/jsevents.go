// Package jsevents is the event log on NATS JetStream (--nats-url): one
// stream every replica appends to and reads, whose stream sequence is the
// event ID, so every replica serves the same sequence. Each replica
// mirrors the retained events in memory (an ordered consumer into an
// events.Memory) and serves reads from the mirror.
package jsevents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Config of the stream; zero values take the events package's defaults.
type Config struct {
	Prefix       string
	Retention    time.Duration // the stream's MaxAge
	MaxEvents    int           // the stream's MaxMsgs (and the mirror's size)
	DedupeWindow time.Duration // the stream's duplicate window (Nats-Msg-Id = Event.Key)
	Replicas     int
	Now          func() time.Time
	Log          *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Retention <= 0 {
		c.Retention = events.DefaultRetention
	}
	if c.MaxEvents <= 0 {
		c.MaxEvents = events.DefaultMaxEvents
	}
	if c.DedupeWindow <= 0 {
		c.DedupeWindow = events.DefaultDedupeWindow
	}
	if c.Replicas <= 0 {
		c.Replicas = 1
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// StreamName is the stream's name for prefix.
func StreamName(prefix string) string {
	return strings.ToUpper(strings.ReplaceAll(prefix, "-", "_")) + "_EVENTS"
}

// Subject is the subject events of typ are published on.
func Subject(prefix, typ string) string { return prefix + ".events." + typ }

// Log is the JetStream event log.
type Log struct {
	js     jetstream.JetStream
	cfg    Config
	stream jetstream.Stream
	mem    *events.Memory
}

// Open ensures the stream and returns the log; call Run to follow it.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Log, error) {
	cfg = cfg.withDefaults()
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName(cfg.Prefix),
		Description: "assetd event log (docs/events.md)",
		Subjects:    []string{cfg.Prefix + ".events.>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      cfg.Retention,
		MaxMsgs:     int64(cfg.MaxEvents),
		Duplicates:  cfg.DedupeWindow,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("event stream %s: %w", StreamName(cfg.Prefix), err)
	}
	l := &Log{js: js, cfg: cfg, stream: s, mem: events.NewMemory(cfg.MaxEvents, cfg.Now)}
	if err := l.catchUp(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

// message is an event as stored in the stream (the ID is the sequence).
type message struct {
	Type  string          `json:"type"`
	Topic string          `json:"topic"`
	Time  time.Time       `json:"time"`
	Data  json.RawMessage `json:"data"`
}

// Append publishes e and returns it with its ID (the stream sequence);
// a duplicate of a Key published within the window comes back with ID 0.
func (l *Log) Append(ctx context.Context, e events.Event) (events.Event, error) {
	out, err := l.AppendBatch(ctx, []events.Event{e})
	if err != nil || len(out) == 0 {
		return events.Event{}, err
	}
	return out[0], nil
}

// AppendBatch publishes evs in order, each acknowledged before the next
// (so their sequences follow their order), and returns the stored ones.
func (l *Log) AppendBatch(ctx context.Context, evs []events.Event) ([]events.Event, error) {
	now := l.cfg.Now().UTC()
	out := make([]events.Event, 0, len(evs))
	for _, e := range evs {
		if e.Type == "" || e.Topic == "" {
			return out, fmt.Errorf("events: append: type and topic are required")
		}
		e.Time = now
		body, err := json.Marshal(message{Type: e.Type, Topic: e.Topic, Time: e.Time, Data: e.Data})
		if err != nil {
			return out, err
		}
		msg := nats.NewMsg(Subject(l.cfg.Prefix, e.Type))
		msg.Data = body
		if e.Key != "" {
			msg.Header.Set(jetstream.MsgIDHeader, e.Key)
		}
		ack, err := l.js.PublishMsg(ctx, msg)
		if err != nil {
			return out, fmt.Errorf("publish event: %w", err)
		}
		if ack.Duplicate {
			continue
		}
		e.ID = ack.Sequence
		out = append(out, e)
	}
	return out, nil
}

// catchUp reads what the stream holds after the mirror's last event.
func (l *Log) catchUp(ctx context.Context) error {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("event stream info: %w", err)
	}
	if info.State.Msgs == 0 {
		l.mem.Advance(info.State.LastSeq)
		return nil
	}
	if l.mem.Last() < info.State.FirstSeq-1 {
		l.mem.Advance(info.State.FirstSeq - 1)
	}
	return nil
}

// Run follows the stream into the mirror until ctx ends, and drops what
// left the retention window from it.
func (l *Log) Run(ctx context.Context) {
	trim := time.NewTicker(events.DefaultPruneEvery)
	defer trim.Stop()
	for ctx.Err() == nil {
		err := l.follow(ctx, trim.C)
		if ctx.Err() != nil {
			return
		}
		l.cfg.Log.Warn("event stream: following failed; retrying", "err", err)
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		_ = l.catchUp(ctx)
	}
}

func (l *Log) follow(ctx context.Context, trim <-chan time.Time) error {
	cfg := jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy}
	if last := l.mem.Last(); last > 0 {
		cfg = jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: last + 1}
	}
	cons, err := l.stream.OrderedConsumer(ctx, cfg)
	if err != nil {
		return err
	}
	it, err := cons.Messages()
	if err != nil {
		return err
	}
	defer it.Stop()
	go func() { <-ctx.Done(); it.Stop() }()
	msgs := make(chan jetstream.Msg)
	errc := make(chan error, 1)
	go func() {
		for {
			m, err := it.Next()
			if err != nil {
				errc <- err
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) && ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		case <-trim:
			l.mem.Trim(l.cfg.Now().Add(-l.cfg.Retention))
		case m := <-msgs:
			md, err := m.Metadata()
			if err != nil {
				continue
			}
			var body message
			if err := json.Unmarshal(m.Data(), &body); err != nil {
				l.cfg.Log.Warn("event stream: undecodable message skipped", "seq", md.Sequence.Stream, "err", err)
				body = message{Type: "invalid", Topic: "invalid", Data: json.RawMessage(`{}`)}
			}
			l.mem.Put(events.Event{ID: md.Sequence.Stream, Type: body.Type, Topic: body.Topic, Time: body.Time.UTC(), Data: body.Data})
		}
	}
}

// Last, Since and Wait read the mirror (see events.Memory).
func (l *Log) Last() uint64 { return l.mem.Last() }

// Since returns up to limit events after `after` (events.ErrExpired:
// outside the retention window).
func (l *Log) Since(ctx context.Context, after uint64, limit int) ([]events.Event, error) {
	return l.mem.Since(ctx, after, limit)
}

// Wait blocks until an event after `after` is mirrored or ctx ends.
func (l *Log) Wait(ctx context.Context, after uint64) error { return l.mem.Wait(ctx, after) }
