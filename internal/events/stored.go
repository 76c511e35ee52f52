package events

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Retention defaults (docs/events.md "Retention"): an event is kept for
// 24 hours and among the newest 100,000, whichever drops it first.
const (
	DefaultRetention    = 24 * time.Hour
	DefaultMaxEvents    = 100_000
	DefaultDedupeWindow = 2 * time.Minute
	DefaultPollInterval = 250 * time.Millisecond
	DefaultPruneEvery   = time.Minute
)

// Store is the durable log's table (internal/storage engines).
type Store interface {
	// AppendEvents stores evs in order with the next IDs, skipping those
	// whose Key was appended at or after dedupeSince, and returns the
	// stored ones.
	AppendEvents(ctx context.Context, evs []Event, dedupeSince time.Time) ([]Event, error)
	// EventsSince returns up to limit events with ID > after, oldest first.
	EventsSince(ctx context.Context, after uint64, limit int) ([]Event, error)
	// EventHead is the last ID ever assigned (0: none).
	EventHead(ctx context.Context) (uint64, error)
	// PruneEvents deletes events appended before `before` and all but the
	// newest keep.
	PruneEvents(ctx context.Context, before time.Time, keep int) (int64, error)
}

// LogOptions configure a durable log; zero values take the defaults.
type LogOptions struct {
	Retention    time.Duration
	MaxEvents    int
	DedupeWindow time.Duration
	// PollInterval: how often the log reads what other writers appended
	// (replicas sharing a PostgreSQL store).
	PollInterval time.Duration
	PruneEvery   time.Duration
	Now          func() time.Time
	Log          *slog.Logger
}

func (o LogOptions) withDefaults() LogOptions {
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.MaxEvents <= 0 {
		o.MaxEvents = DefaultMaxEvents
	}
	if o.DedupeWindow <= 0 {
		o.DedupeWindow = DefaultDedupeWindow
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.PruneEvery <= 0 {
		o.PruneEvery = DefaultPruneEvery
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Stored is the event log of the store (the embedded default, and
// PostgreSQL without NATS): appends go to the events table; reads are
// served from an in-memory mirror of the retained events, which follows
// the table (at once after a local append, every PollInterval for other
// writers).
type Stored struct {
	st   Store
	opts LogOptions
	mem  *Memory
	pull sync.Mutex
}

// NewStored returns a log over st; call Load, then Run.
func NewStored(st Store, opts LogOptions) *Stored {
	opts = opts.withDefaults()
	return &Stored{st: st, opts: opts, mem: NewMemory(opts.MaxEvents, opts.Now)}
}

// Load prunes the table to the window and reads what it retains.
func (s *Stored) Load(ctx context.Context) error {
	if _, err := s.st.PruneEvents(ctx, s.opts.Now().Add(-s.opts.Retention), s.opts.MaxEvents); err != nil {
		return err
	}
	head, err := s.st.EventHead(ctx)
	if err != nil {
		return err
	}
	if err := s.sync(ctx); err != nil {
		return err
	}
	s.mem.Advance(head) // everything up to head was pruned: the mirror starts past it
	return nil
}

// sync reads the table's events after the mirror's last into it.
func (s *Stored) sync(ctx context.Context) error {
	s.pull.Lock()
	defer s.pull.Unlock()
	for {
		evs, err := s.st.EventsSince(ctx, s.mem.Last(), 1000)
		if err != nil {
			return err
		}
		for _, e := range evs {
			s.mem.Put(e)
		}
		if len(evs) < 1000 {
			return nil
		}
	}
}

// Append stores e (type and topic required) and returns it with its ID.
// An event dropped as a duplicate (Key) comes back with ID 0.
func (s *Stored) Append(ctx context.Context, e Event) (Event, error) {
	out, err := s.AppendBatch(ctx, []Event{e})
	if err != nil || len(out) == 0 {
		return Event{}, err
	}
	return out[0], nil
}

// AppendBatch stores evs in one transaction and returns the stored ones.
func (s *Stored) AppendBatch(ctx context.Context, evs []Event) ([]Event, error) {
	now := s.opts.Now().UTC()
	for i := range evs {
		if evs[i].Type == "" || evs[i].Topic == "" {
			return nil, fmt.Errorf("events: append: type and topic are required")
		}
		evs[i].Time = now
	}
	out, err := s.st.AppendEvents(ctx, evs, now.Add(-s.opts.DedupeWindow))
	if err != nil {
		return nil, err
	}
	if err := s.sync(ctx); err != nil {
		s.opts.Log.Warn("event log: reading back appended events failed; the poll retries", "err", err)
	}
	return out, nil
}

// Last, Since and Wait read the mirror (see Memory).
func (s *Stored) Last() uint64 { return s.mem.Last() }

// Since returns up to limit events after `after` (ErrExpired: outside the
// retention window).
func (s *Stored) Since(ctx context.Context, after uint64, limit int) ([]Event, error) {
	return s.mem.Since(ctx, after, limit)
}

// Wait blocks until an event after `after` is readable or ctx ends.
func (s *Stored) Wait(ctx context.Context, after uint64) error { return s.mem.Wait(ctx, after) }

// Run follows other writers' appends and prunes the table and the mirror
// to the window until ctx ends.
func (s *Stored) Run(ctx context.Context) {
	poll := time.NewTicker(s.opts.PollInterval)
	defer poll.Stop()
	prune := time.NewTicker(s.opts.PruneEvery)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
			if err := s.sync(ctx); err != nil && ctx.Err() == nil {
				s.opts.Log.Warn("event log: reading new events failed", "err", err)
			}
		case <-prune.C:
			s.Prune(ctx)
		}
	}
}

// Prune drops what left the retention window from the table and mirror.
func (s *Stored) Prune(ctx context.Context) {
	cutoff := s.opts.Now().Add(-s.opts.Retention)
	if _, err := s.st.PruneEvents(ctx, cutoff, s.opts.MaxEvents); err != nil && ctx.Err() == nil {
		s.opts.Log.Warn("event log: prune failed", "err", err)
	}
	s.mem.Trim(cutoff)
}
