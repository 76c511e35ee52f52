// Package connlimit caps the connections an http.Server holds open at
// once, so a flood of connections, idle or not, cannot exhaust the
// process's file descriptors.
//
// A Limiter has Max slots. Its listener (Listen) accepts a connection and
// hands it to the server only once a slot is free: while all are taken it
// holds that one connection (so at most Max+1 are open) and further ones
// wait in the kernel's accept queue, costing the process nothing. When
// the server holds idle keep-alive connections, or one goes idle while a
// connection waits, the one idle the longest is closed to make room;
// otherwise the next connection the server closes frees the slot. A new
// connection that has not sent its request yet is not idle: the server's
// ReadHeaderTimeout bounds it.
//
// The server reports connection states through Limiter.ConnState, which
// must be its http.Server.ConnState: a slot is released when its
// connection is closed or hijacked. Connections are not wrapped, so the
// server sees exactly what the inner listener accepted (internal/coalesce's
// writev stays intact).
package connlimit

import (
	"net"
	"net/http"
	"sync"
)

// Limiter holds the slots of one server's connections.
type Limiter struct {
	slots chan struct{}
	done  chan struct{}
	close sync.Once

	mu      sync.Mutex
	seq     uint64
	idle    map[net.Conn]uint64 // keep-alive connections between requests, numbered in the order they went idle
	waiting bool                // Accept holds a connection until a slot is free
}

// New returns a Limiter of n slots (at least 1).
func New(n int) *Limiter {
	return &Limiter{slots: make(chan struct{}, max(n, 1)), done: make(chan struct{}), idle: map[net.Conn]uint64{}}
}

// Max is the number of slots.
func (l *Limiter) Max() int { return cap(l.slots) }

// Open is the number of slots taken: connections handed to the server and
// not yet closed.
func (l *Limiter) Open() int { return len(l.slots) }

// Listen wraps inner: Accept returns a connection only when a slot is
// free. Closing the returned listener closes inner and ends a wait. A
// Limiter serves one listener.
func (l *Limiter) Listen(inner net.Listener) net.Listener { return &listener{Listener: inner, l: l} }

type listener struct {
	net.Listener
	l *Limiter
}

func (ln *listener) Accept() (net.Conn, error) {
	c, err := ln.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l := ln.l
	select {
	case l.slots <- struct{}{}:
		return c, nil
	default:
	}
	l.mu.Lock()
	l.waiting = true
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting = false
		l.mu.Unlock()
	}()
	l.closeOldestIdle()
	select {
	case l.slots <- struct{}{}:
		return c, nil
	case <-l.done:
		c.Close()
		return nil, net.ErrClosed
	}
}

func (ln *listener) Close() error {
	ln.l.close.Do(func() { close(ln.l.done) })
	return ln.Listener.Close()
}

// ConnState is the http.Server ConnState hook: it tracks idle
// connections and releases a connection's slot when it is closed or
// hijacked.
func (l *Limiter) ConnState(c net.Conn, s http.ConnState) {
	switch s {
	case http.StateIdle:
		l.mu.Lock()
		l.seq++
		l.idle[c] = l.seq
		waiting := l.waiting
		l.mu.Unlock()
		if waiting {
			l.closeOldestIdle()
		}
	case http.StateActive:
		l.mu.Lock()
		delete(l.idle, c)
		l.mu.Unlock()
	case http.StateClosed, http.StateHijacked:
		l.mu.Lock()
		delete(l.idle, c)
		l.mu.Unlock()
		select {
		case <-l.slots:
		default: // not accepted through Listen
		}
	}
}

// closeOldestIdle closes the connection idle the longest, if any; the
// server then reports it closed, which frees its slot. A request racing
// the close fails like one sent on a connection the idle timeout ended
// (clients retry idempotent requests on a fresh connection).
func (l *Limiter) closeOldestIdle() {
	l.mu.Lock()
	var oldest net.Conn
	var at uint64
	for c, seq := range l.idle {
		if oldest == nil || seq < at {
			oldest, at = c, seq
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest != nil {
		oldest.Close()
	}
}
