// Package usage records every authenticated request (key, project, route
// pattern, status, latency) through a batched asynchronous writer. Record
// never blocks: when the buffer is full the record is dropped and counted.
package usage

import (
	"context"
	"log/slog"
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
}

// Sink stores batches of records.
type Sink interface {
	InsertUsage(ctx context.Context, batch []Record) error
}

// Recorder buffers records and writes them in batches.
type Recorder struct {
	sink     Sink
	log      *slog.Logger
	ch       chan Record
	batch    int
	interval time.Duration
	dropped  atomic.Int64
	written  atomic.Int64
	done     chan struct{}
	once     sync.Once
}

// Options tune a Recorder; zero values take defaults.
type Options struct {
	Buffer        int           // queued records before dropping (default 65536)
	BatchSize     int           // records per write (default 500)
	FlushInterval time.Duration // max delay before a partial batch is written (default 1s)
}

// NewRecorder starts a recorder writing to sink. Call Close to flush.
func NewRecorder(sink Sink, log *slog.Logger, o Options) *Recorder {
	if o.Buffer <= 0 {
		o.Buffer = 65536
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = time.Second
	}
	r := &Recorder{sink: sink, log: log, ch: make(chan Record, o.Buffer), batch: o.BatchSize, interval: o.FlushInterval, done: make(chan struct{})}
	go r.run()
	return r
}

// Record queues rec without blocking.
func (r *Recorder) Record(rec Record) {
	select {
	case r.ch <- rec:
	default:
		r.dropped.Add(1)
	}
}

// Dropped is the number of records lost to a full buffer.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Written is the number of records stored.
func (r *Recorder) Written() int64 { return r.written.Load() }

// Close stops accepting records, writes what is queued and returns when
// done or when ctx ends. Record must not be called after Close.
func (r *Recorder) Close(ctx context.Context) error {
	r.once.Do(func() { close(r.ch) })
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Recorder) run() {
	defer close(r.done)
	t := time.NewTicker(r.interval)
	defer t.Stop()
	buf := make([]Record, 0, r.batch)
	flush := func() {
		if len(buf) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := r.sink.InsertUsage(ctx, buf)
		cancel()
		if err != nil {
			r.log.Warn("usage batch write failed", "records", len(buf), "err", err)
			r.dropped.Add(int64(len(buf)))
		} else {
			r.written.Add(int64(len(buf)))
		}
		buf = buf[:0]
	}
	for {
		select {
		case rec, ok := <-r.ch:
			if !ok {
				flush()
				return
			}
			buf = append(buf, rec)
			if len(buf) >= r.batch {
				flush()
			}
		case <-t.C:
			flush()
		}
	}
}
