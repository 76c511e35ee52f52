// Package usage counts authenticated requests in memory, per key, route,
// status and UTC minute, and flushes the counts to the store as aggregates
// in batches: nothing on the request path touches the store. Record never
// blocks on I/O; when the in-memory table is full a record is dropped and
// counted. Stored aggregates are kept for a retention period and pruned.
package usage

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Record is one authenticated request.
type Record struct {
	KeyID     string
	ProjectID string
	Route     string // route pattern, e.g. "GET /v1/assets/{assetId}"
	Status    int
	Latency   time.Duration
	At        time.Time
	// Charged says the limiter counted the request against the key's rate
	// and quota (refusals such as a 429 or a missing scope are not).
	Charged bool
}

// Aggregate is the requests of one key, route and status in one UTC
// minute.
type Aggregate struct {
	KeyID     string
	ProjectID string
	Route     string
	Status    int
	Minute    int64 // unix minutes
	Requests  int64
	Charged   int64 // requests the limiter charged (what a quota counts)
	LatencyUS int64 // sum over the requests, microseconds
}

// Sink stores aggregates. AddUsage adds each aggregate to what is stored
// for the same key, minute, route and status (an upsert), atomically per
// batch. PruneUsage deletes the aggregates of minutes before the given
// one and returns how many rows went.
type Sink interface {
	AddUsage(ctx context.Context, batch []Aggregate) error
	PruneUsage(ctx context.Context, beforeMinute int64) (int64, error)
}

// Defaults of Options.
const (
	DefaultMaxRows       = 100_000
	DefaultBatchSize     = 500
	DefaultFlushInterval = 10 * time.Second
	DefaultRetention     = 90 * 24 * time.Hour
	DefaultPruneInterval = time.Hour
)

// Options tune a Recorder; zero values take the defaults.
type Options struct {
	// MaxRows bounds the aggregates held between flushes; a record that
	// needs a new row past it is dropped.
	MaxRows int
	// BatchSize is the aggregates per store write.
	BatchSize int
	// FlushInterval is how often the counts are written. A crash loses at
	// most this much usage; Close writes what is held.
	FlushInterval time.Duration
	// Retention is how long stored aggregates are kept (pruned every
	// PruneInterval); negative keeps them forever.
	Retention     time.Duration
	PruneInterval time.Duration
	Now           func() time.Time
}

type rowKey struct {
	keyID, route string
	status       int
	minute       int64
}

// Recorder counts records and flushes them. Start it with Run.
type Recorder struct {
	sink Sink
	log  *slog.Logger
	o    Options

	mu   sync.Mutex
	rows map[rowKey]*Aggregate

	dropped atomic.Int64 // records lost
	written atomic.Int64 // records stored (as parts of aggregates)
	pruned  atomic.Int64 // aggregate rows pruned
}

// NewRecorder returns a recorder writing to sink; call Run to flush
// periodically and Close (or cancel Run's context and Close) to write what
// is left.
func NewRecorder(sink Sink, log *slog.Logger, o Options) *Recorder {
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Retention == 0 {
		o.Retention = DefaultRetention
	}
	if o.PruneInterval <= 0 {
		o.PruneInterval = DefaultPruneInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Recorder{sink: sink, log: log, o: o, rows: map[rowKey]*Aggregate{}}
}

// Record counts rec; it never waits on the store.
func (r *Recorder) Record(rec Record) {
	k := rowKey{keyID: rec.KeyID, route: rec.Route, status: rec.Status, minute: minuteOf(rec.At)}
	r.mu.Lock()
	a := r.rows[k]
	if a == nil {
		if len(r.rows) >= r.o.MaxRows {
			r.mu.Unlock()
			r.dropped.Add(1)
			return
		}
		a = &Aggregate{KeyID: rec.KeyID, ProjectID: rec.ProjectID, Route: rec.Route, Status: rec.Status, Minute: k.minute}
		r.rows[k] = a
	}
	a.Requests++
	if rec.Charged {
		a.Charged++
	}
	a.LatencyUS += rec.Latency.Microseconds()
	r.mu.Unlock()
}

// minuteOf is t in unix minutes (UTC).
func minuteOf(t time.Time) int64 { return t.Unix() / 60 }

// Dropped is the number of records lost (table full, or a final write
// failed).
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Written is the number of records stored.
func (r *Recorder) Written() int64 { return r.written.Load() }

// Pruned is the number of aggregate rows pruned for age.
func (r *Recorder) Pruned() int64 { return r.pruned.Load() }

// Run flushes every FlushInterval and prunes every PruneInterval until ctx
// ends (it does not write the final counts: Close does).
func (r *Recorder) Run(ctx context.Context) {
	flush := time.NewTicker(r.o.FlushInterval)
	defer flush.Stop()
	prune := time.NewTicker(r.o.PruneInterval)
	defer prune.Stop()
	r.prune(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-flush.C:
			if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
				r.log.Warn("usage flush failed; counts kept for the next flush", "err", err)
			}
		case <-prune.C:
			r.prune(ctx)
		}
	}
}

// Close writes the counts held, bounded by ctx; what cannot be written is
// dropped (and counted).
func (r *Recorder) Close(ctx context.Context) error {
	if err := r.Flush(ctx); err != nil {
		r.mu.Lock()
		var lost int64
		for _, a := range r.rows {
			lost += a.Requests
		}
		clear(r.rows)
		r.mu.Unlock()
		r.dropped.Add(lost)
		return err
	}
	return nil
}

// Flush writes the counts held in batches of BatchSize (ordered by key,
// minute, route and status, so concurrent writers lock rows in one order).
// The batches that fail go back into the table, added to what arrived
// since, for the next flush.
func (r *Recorder) Flush(ctx context.Context) error {
	r.mu.Lock()
	if len(r.rows) == 0 {
		r.mu.Unlock()
		return nil
	}
	held := r.rows
	r.rows = make(map[rowKey]*Aggregate, len(held))
	r.mu.Unlock()

	all := make([]Aggregate, 0, len(held))
	for _, a := range held {
		all = append(all, *a)
	}
	slices.SortFunc(all, func(a, b Aggregate) int {
		return cmp.Or(cmp.Compare(a.KeyID, b.KeyID), cmp.Compare(a.Minute, b.Minute), cmp.Compare(a.Route, b.Route), cmp.Compare(a.Status, b.Status))
	})
	var firstErr error
	for len(all) > 0 {
		n := min(len(all), r.o.BatchSize)
		batch := all[:n:n]
		all = all[n:]
		if firstErr == nil {
			wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := r.sink.AddUsage(wctx, batch)
			cancel()
			if err == nil {
				for _, a := range batch {
					r.written.Add(a.Requests)
				}
				continue
			}
			firstErr = err
		}
		r.restore(batch)
	}
	return firstErr
}

// restore adds aggregates that could not be written back into the table.
func (r *Recorder) restore(batch []Aggregate) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range batch {
		k := rowKey{keyID: a.KeyID, route: a.Route, status: a.Status, minute: a.Minute}
		cur := r.rows[k]
		if cur == nil {
			if len(r.rows) >= r.o.MaxRows {
				r.dropped.Add(a.Requests)
				continue
			}
			c := a
			r.rows[k] = &c
			continue
		}
		cur.Requests += a.Requests
		cur.Charged += a.Charged
		cur.LatencyUS += a.LatencyUS
	}
}

// prune deletes the stored aggregates older than the retention.
func (r *Recorder) prune(ctx context.Context) {
	if r.o.Retention < 0 {
		return
	}
	before := minuteOf(r.o.Now().Add(-r.o.Retention))
	n, err := r.sink.PruneUsage(ctx, before)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("usage prune failed", "err", err)
		}
		return
	}
	r.pruned.Add(n)
	if n > 0 {
		r.log.Info("usage pruned", "rows", n, "retention", r.o.Retention)
	}
}
