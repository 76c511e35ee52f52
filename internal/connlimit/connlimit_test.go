package connlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/poll"
)

// countingListener counts the connections the inner listener accepted.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (c *countingListener) Accept() (net.Conn, error) {
	conn, err := c.Listener.Accept()
	if err == nil {
		c.n.Add(1)
	}
	return conn, err
}

// serve runs h behind a Limiter of max slots and returns the limiter, the
// inner listener's count and the address.
func serve(t *testing.T, max int, h http.Handler) (*Limiter, *countingListener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inner := &countingListener{Listener: ln}
	l := New(max)
	srv := &http.Server{Handler: h, ConnState: l.ConnState}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l.Listen(inner)) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return l, inner, ln.Addr().String()
}

// request sends GET path on a new connection and returns the connection
// and a channel of the response status (or error).
func request(t *testing.T, addr, path, extra string) (net.Conn, <-chan string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n", path, extra); err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			out <- err.Error()
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		out <- resp.Status
	}()
	return c, out
}

// TestWaitsAtCapAndAdmitsOnRelease: with both slots held by requests in
// progress, a third connection is accepted by the kernel and held by the
// listener, never handed to the server; when one request ends and its
// connection closes, the third is served.
func TestWaitsAtCapAndAdmitsOnRelease(t *testing.T) {
	release := map[string]chan struct{}{"/a": make(chan struct{}), "/b": make(chan struct{})}
	var entered atomic.Int64
	var served []string
	order := make(chan string, 3)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		order <- r.URL.Path
		if ch, ok := release[r.URL.Path]; ok {
			<-ch
		}
	})
	l, inner, addr := serve(t, 2, h)
	_, a := request(t, addr, "/a", "Connection: close\r\n")
	_, b := request(t, addr, "/b", "Connection: close\r\n")
	poll.For(t, time.Minute, "both requests in their handlers", func() bool { return entered.Load() == 2 })
	served = append(served, <-order, <-order)

	_, c := request(t, addr, "/c", "")
	poll.For(t, time.Minute, "the third connection accepted by the inner listener", func() bool { return inner.n.Load() == 3 })
	// Both slots are held by handlers that cannot return: the listener
	// cannot have handed the third connection to the server.
	if n, open := entered.Load(), l.Open(); n != 2 || open != 2 {
		t.Fatalf("at the cap: %d handlers entered, %d slots taken; want 2 and 2", n, open)
	}

	close(release["/a"])
	if s := <-a; s != "200 OK" {
		t.Fatalf("/a: %s", s)
	}
	if s := <-c; s != "200 OK" {
		t.Fatalf("/c after a slot was released: %s", s)
	}
	served = append(served, <-order)
	if served[2] != "/c" {
		t.Fatalf("handler order %v", served)
	}
	if open := l.Open(); open > l.Max() {
		t.Fatalf("%d slots taken, max %d", open, l.Max())
	}
	close(release["/b"])
	if s := <-b; s != "200 OK" {
		t.Fatalf("/b: %s", s)
	}
}

// TestIdleConnectionMakesRoom: at the cap, a keep-alive connection
// between requests is closed so a waiting connection is served at once,
// and one that goes idle while a connection waits is closed too.
func TestIdleConnectionMakesRoom(t *testing.T) {
	hold := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			<-hold
		}
	})
	l, _, addr := serve(t, 1, h)

	// Idle before the new connection arrives.
	a, ra := request(t, addr, "/", "")
	if s := <-ra; s != "200 OK" {
		t.Fatalf("first: %s", s)
	}
	_, rb := request(t, addr, "/hold", "")
	_ = a.SetReadDeadline(time.Now().Add(time.Minute)) // a generous guard: the close comes at once
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the idle keep-alive connection was not closed for the waiting one: %v", err)
	}

	// Idle while a connection waits: /hold keeps the only slot, the next
	// connection waits, /hold's connection goes idle and makes room.
	_, rc := request(t, addr, "/", "")
	close(hold)
	if s := <-rb; s != "200 OK" {
		t.Fatalf("/hold: %s", s)
	}
	if s := <-rc; s != "200 OK" {
		t.Fatalf("waiting connection: %s", s)
	}
	if open := l.Open(); open > 1 {
		t.Fatalf("%d slots taken, max 1", open)
	}
}

// TestCloseEndsWait: closing the server while a connection waits for a
// slot ends Serve (the cleanup checks it returns ErrServerClosed).
func TestCloseEndsWait(t *testing.T) {
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	_, inner, addr := serve(t, 1, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hold }))
	request(t, addr, "/", "")
	request(t, addr, "/", "")
	poll.For(t, time.Minute, "the second connection waits", func() bool { return inner.n.Load() == 2 })
}
