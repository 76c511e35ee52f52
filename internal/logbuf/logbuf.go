// Package logbuf buffers log output: lines are appended to a buffer that
// is written to the underlying writer when it reaches a size, on an
// interval and at Close, so a busy server does not pay a write syscall
// per access-log line. Lines that must not wait (warnings and errors, by
// Handler) go through Sync, which writes the buffer and the line at once,
// in order. A failed write is never dropped silently: the bytes stay
// buffered and are retried at the next flush (up to Options.MaxBuffered,
// past which the oldest are discarded and counted), and the error is
// returned by Flush and Close and kept for Err.
package logbuf

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultSize        = 32 << 10
	DefaultInterval    = 250 * time.Millisecond
	DefaultMaxBuffered = 4 << 20
)

// Options tune a Writer; zero values take the defaults.
type Options struct {
	// Size is the buffered amount that triggers a write.
	Size int
	// Interval is the longest a line waits (Run).
	Interval time.Duration
	// MaxBuffered bounds what is kept while the underlying writer fails.
	MaxBuffered int
}

// Writer is a buffered, concurrency-safe io.Writer of whole log lines.
type Writer struct {
	w   io.Writer
	o   Options
	mu  sync.Mutex
	buf []byte
	err error // the last write error (nil after a successful flush)
	// first is the first write error ever seen (Err); discarded counts
	// bytes dropped past MaxBuffered.
	first     error
	discarded int64
	closed    bool
}

// New returns a Writer over w.
func New(w io.Writer, o Options) *Writer {
	if o.Size <= 0 {
		o.Size = DefaultSize
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.MaxBuffered < o.Size {
		o.MaxBuffered = max(DefaultMaxBuffered, o.Size)
	}
	return &Writer{w: w, o: o, buf: make([]byte, 0, o.Size+4096)}
}

// Write appends p (one or more whole lines) and writes the buffer out
// when it reached Options.Size. It never fails: a write error is kept
// (Flush, Close, Err) and the bytes are retried.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= b.o.Size {
		b.flushLocked()
	}
	return len(p), nil
}

// Sync is an io.Writer that writes the buffer and then its line at once.
func (b *Writer) Sync() io.Writer { return syncWriter{b} }

type syncWriter struct{ b *Writer }

func (s syncWriter) Write(p []byte) (int, error) {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if err := b.flushLocked(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushLocked writes the buffer; on failure it keeps what was not
// written (bounded by MaxBuffered).
func (b *Writer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	n, err := b.w.Write(b.buf)
	if err == nil && n < len(b.buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if b.first == nil {
			b.first = err
		}
		b.err = err
		rest := b.buf[n:]
		if over := len(rest) - b.o.MaxBuffered; over > 0 {
			b.discarded += int64(over)
			rest = rest[over:]
		}
		b.buf = append(b.buf[:0], rest...)
		return err
	}
	b.err = nil
	b.buf = b.buf[:0]
	return nil
}

// Flush writes what is buffered; it returns the write error, if any.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

// Run flushes every Options.Interval until ctx ends, then flushes once
// more.
func (b *Writer) Run(ctx context.Context) {
	t := time.NewTicker(b.o.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = b.Flush()
			return
		case <-t.C:
			_ = b.Flush()
		}
	}
}

// Close flushes and makes later writes go straight through; it returns
// the flush error and reports discarded bytes.
func (b *Writer) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.flushLocked()
	b.closed = true
	if b.discarded > 0 {
		err = errors.Join(err, &DiscardedError{Bytes: b.discarded})
	}
	return err
}

// Err is the first write error seen, nil when every write succeeded.
func (b *Writer) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.first
}

// DiscardedError reports log bytes dropped while the writer failed.
type DiscardedError struct{ Bytes int64 }

func (e *DiscardedError) Error() string {
	return "logbuf: " + itoa(e.Bytes) + " bytes of log discarded after write errors"
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
