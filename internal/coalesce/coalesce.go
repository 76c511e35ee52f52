// Package coalesce lets an HTTP/1.x handler send one response's status
// line, headers and body in a single write to the connection.
//
// net/http buffers a response in 4 KB: a body larger than what is left
// of that buffer after the headers leaves in two writes (the full buffer,
// then the rest), each a system call and, on the peer, a wake-up. A
// listener wrapped by Listen accepts connections whose writes a handler
// can hold for the length of one response (Conn.Hold … Conn.Release):
// held writes are gathered and sent with one writev. Writes that are a
// suffix of the body the handler registered are kept by reference;
// others (net/http's reused buffers) are copied, up to CopyLimit bytes.
//
// Only the goroutine serving the connection may Hold and Release, and
// only while nothing else writes to the connection: true of net/http's
// HTTP/1.x server, whose handler runs on the connection's goroutine
// (not of HTTP/2, where frames are written by another goroutine).
package coalesce

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// CopyLimit bounds the bytes a held connection copies; a write that would
// go past it sends what is held, and itself, at once.
const CopyLimit = 16 << 10

// Listen wraps l so that its connections are *Conn.
func Listen(l net.Listener) net.Listener { return listener{l} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &Conn{Conn: c}, nil
}

type ctxKey struct{}

// ConnContext is an http.Server ConnContext: it makes the connection
// reachable from its requests' contexts (FromContext).
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*Conn); ok {
		return context.WithValue(ctx, ctxKey{}, cc)
	}
	return ctx
}

// FromContext returns the request's connection, or nil when it was not
// accepted by a Listen listener.
func FromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(ctxKey{}).(*Conn)
	return c
}

var copyBufs = sync.Pool{New: func() any { return new([CopyLimit]byte) }}

// segment is one held write: a reference into the registered body, or
// the range [off, end) of the copy buffer.
type segment struct {
	ref      []byte
	off, end int
}

// Conn is a connection whose writes can be held and sent together.
type Conn struct {
	net.Conn
	held bool
	body []byte
	cp   *[CopyLimit]byte
	ncp  int
	segs []segment
	vec  net.Buffers
	// sends counts the writes that reached the connection (for tests
	// and metrics).
	sends atomic.Uint64
}

// Hold starts gathering writes; body, when not nil, is the response body
// about to be written: a write that is a suffix of it is kept by
// reference instead of copied, so body must not change until Release.
func (c *Conn) Hold(body []byte) {
	c.held, c.body = true, body
}

// Release sends everything held since Hold in one write and stops
// holding. It returns the write's error.
func (c *Conn) Release() error {
	c.held, c.body = false, nil
	err := c.send(nil)
	if c.cp != nil {
		copyBufs.Put(c.cp)
		c.cp = nil
	}
	return err
}

// Sends reports how many writes reached the underlying connection.
func (c *Conn) Sends() uint64 { return c.sends.Load() }

// Write holds p while the connection is held, and writes it through
// otherwise.
func (c *Conn) Write(p []byte) (int, error) {
	if !c.held {
		c.sends.Add(1)
		return c.Conn.Write(p)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if suffixOf(p, c.body) {
		c.segs = append(c.segs, segment{ref: p})
		return len(p), nil
	}
	if c.ncp+len(p) > CopyLimit {
		// Too much to copy: send what is held and p now.
		if err := c.send(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if c.cp == nil {
		c.cp = copyBufs.Get().(*[CopyLimit]byte)
	}
	n := copy(c.cp[c.ncp:], p)
	c.segs = append(c.segs, segment{off: c.ncp, end: c.ncp + n})
	c.ncp += n
	return len(p), nil
}

// send writes the held segments followed by extra in one write and
// empties the held state.
func (c *Conn) send(extra []byte) error {
	if len(c.segs) == 0 && extra == nil {
		return nil
	}
	v := c.vec[:0]
	for _, s := range c.segs {
		if s.ref != nil {
			v = append(v, s.ref)
		} else {
			v = append(v, c.cp[s.off:s.end])
		}
	}
	if extra != nil {
		v = append(v, extra)
	}
	clear(c.segs) // drop the references into the body
	c.segs, c.ncp = c.segs[:0], 0
	c.sends.Add(1)
	var err error
	to := c.target()
	if len(v) == 1 {
		_, err = to.Write(v[0])
	} else {
		w := v // WriteTo consumes its receiver; v keeps the backing array
		_, err = w.WriteTo(to)
	}
	clear(v)
	c.vec = v[:0]
	return err
}

// WriteThrough is a connection wrapper whose writes reach the connection
// WriteConn returns unchanged (one that only watches reads, such as
// internal/framing's). Held writes are sent to the innermost such
// connection: net.Buffers leaves with one writev only when it reaches the
// *net.TCPConn itself, and a wrapper cannot offer writev on its own.
type WriteThrough interface {
	WriteConn() net.Conn
}

// target is the connection held writes are sent to.
func (c *Conn) target() net.Conn {
	w := c.Conn
	for {
		t, ok := w.(WriteThrough)
		if !ok {
			return w
		}
		w = t.WriteConn()
	}
}

// suffixOf reports whether p is the tail of body (same memory).
func suffixOf(p, body []byte) bool {
	return len(p) > 0 && len(p) <= len(body) && &p[len(p)-1] == &body[len(body)-1]
}

// CloseWrite half-closes the connection when the underlying one can
// (net/http uses it before closing a connection it answered an error on).
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// ReadFrom passes through to the underlying connection's ReadFrom
// (sendfile, splice) when nothing is held.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok && !c.held {
		c.sends.Add(1)
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c}, r)
}

type writerOnly struct{ io.Writer }
