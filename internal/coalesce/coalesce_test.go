package coalesce

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// fakeConn records each write that reaches it (a net.Buffers reaches it
// as one write per buffer: it has no writev; Sends counts the sends).
type fakeConn struct {
	net.Conn
	writes [][]byte
}

func (f *fakeConn) Write(p []byte) (int, error) {
	f.writes = append(f.writes, bytes.Clone(p))
	return len(p), nil
}

func (f *fakeConn) all() []byte { return bytes.Join(f.writes, nil) }

func TestHoldGathersWritesIntoOne(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 9000)
	for _, tc := range []struct {
		name   string
		writes func(w io.Writer)
		want   int // sends reaching the connection
	}{
		{"header then body suffix", func(w io.Writer) {
			hdr := []byte("HTTP/1.1 200 OK\r\n\r\n")
			w.Write(append(hdr, body[:100]...))
			w.Write(body[100:])
		}, 1},
		{"buffer-sized pieces", func(w io.Writer) {
			for i := 0; i < len(body); i += 4096 {
				w.Write(bytes.Clone(body[i:min(i+4096, len(body))]))
			}
		}, 1},
		{"nothing written", func(io.Writer) {}, 0},
		{"copies past the limit", func(w io.Writer) {
			big := bytes.Repeat([]byte("c"), CopyLimit-10)
			w.Write(big)
			w.Write([]byte("0123456789ab")) // would pass the limit: sent with what is held
			w.Write([]byte("tail"))
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ref bytes.Buffer
			tc.writes(&ref)
			f := &fakeConn{}
			c := &Conn{Conn: f}
			c.Hold(body)
			tc.writes(c)
			if len(f.writes) != 0 && tc.want < 2 {
				t.Fatalf("%d writes reached the connection while held", len(f.writes))
			}
			if err := c.Release(); err != nil {
				t.Fatal(err)
			}
			if got := f.all(); !bytes.Equal(got, ref.Bytes()) {
				t.Errorf("bytes sent differ from bytes written (%d vs %d)", len(got), ref.Len())
			}
			if c.Sends() != uint64(tc.want) {
				t.Errorf("Sends() = %d, want %d", c.Sends(), tc.want)
			}
		})
	}
}

func TestHeldCopiesReusedBuffers(t *testing.T) {
	f := &fakeConn{}
	c := &Conn{Conn: f}
	c.Hold(nil)
	buf := []byte("first")
	c.Write(buf)
	copy(buf, "XXXXX") // the writer reuses its buffer, as bufio does
	c.Write([]byte(" second"))
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if got := string(f.all()); got != "first second" {
		t.Errorf("sent %q, want %q", got, "first second")
	}
}

func TestNotHeldWritesThrough(t *testing.T) {
	f := &fakeConn{}
	c := &Conn{Conn: f}
	c.Write([]byte("a"))
	c.Write([]byte("b"))
	if len(f.writes) != 2 {
		t.Fatalf("writes = %d, want 2", len(f.writes))
	}
	c.Hold(nil)
	c.Write([]byte("c"))
	c.Release()
	c.Write([]byte("d"))
	if got := string(f.all()); got != "abcd" || len(f.writes) != 4 {
		t.Errorf("sent %q in %d writes, want abcd in 4", got, len(f.writes))
	}
}

func TestSuffixOf(t *testing.T) {
	body := []byte("0123456789")
	for _, tc := range []struct {
		name string
		p    []byte
		want bool
	}{
		{"whole", body, true},
		{"tail", body[4:], true},
		{"head", body[:4], false},
		{"middle", body[2:5], false},
		{"equal bytes, other memory", []byte("6789"), false},
		{"empty", body[10:], false},
	} {
		if got := suffixOf(tc.p, body); got != tc.want {
			t.Errorf("%s: suffixOf = %v, want %v", tc.name, got, tc.want)
		}
	}
	if suffixOf([]byte("x"), nil) {
		t.Error("suffixOf(nil body) = true")
	}
}

// TestOneWritePerResponse serves responses of several sizes over a real
// keep-alive connection: each held response reaches the socket in one
// write, and the client reads exactly the bytes served.
func TestOneWritePerResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []*Conn
	)
	srv := &http.Server{
		ConnContext: ConnContext,
		ConnState: func(c net.Conn, s http.ConnState) {
			if s == http.StateNew {
				mu.Lock()
				conns = append(conns, c.(*Conn))
				mu.Unlock()
			}
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			body := bytes.Repeat([]byte{'a' + byte(n%26)}, n)
			w.Header().Set("Content-Length", strconv.Itoa(n))
			c := FromContext(r.Context())
			if c == nil {
				t.Error("no connection in the request context")
				return
			}
			c.Hold(body)
			w.WriteHeader(http.StatusOK)
			w.Write(body)
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Error(err)
			}
			if err := c.Release(); err != nil {
				t.Error(err)
			}
		}),
	}
	go srv.Serve(Listen(ln))
	t.Cleanup(func() { srv.Shutdown(context.Background()) })

	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	sizes := []int{10, 3000, 4600, 40_000, 160_000, 1 << 20}
	for _, n := range sizes {
		fmt.Fprintf(nc, "GET /?n=%d HTTP/1.1\r\nHost: x\r\n\r\n", n)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(b) != n || (n > 0 && b[n-1] != 'a'+byte(n%26)) {
			t.Fatalf("n=%d: read %d bytes, err %v", n, len(b), err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 1 {
		t.Fatalf("%d connections, want 1 (keep-alive)", len(conns))
	}
	if got := conns[0].Sends(); got != uint64(len(sizes)) {
		t.Errorf("writes reaching the socket = %d for %d responses, want one each", got, len(sizes))
	}
}

func TestFromContextWithoutConn(t *testing.T) {
	if FromContext(context.Background()) != nil {
		t.Error("FromContext of a plain context is not nil")
	}
	ctx := ConnContext(context.Background(), &fakeConn{})
	if FromContext(ctx) != nil {
		t.Error("a connection not from Listen was put in the context")
	}
}

// readWatcher is a wrapper that only watches reads (like
// internal/framing's connections): its writes pass to the inner
// connection unchanged, which it names with WriteConn.
type readWatcher struct {
	net.Conn
	t *testing.T
}

func (r readWatcher) Write(p []byte) (int, error) {
	r.t.Errorf("a held send went through the read watcher (%d bytes): writev is lost", len(p))
	return r.Conn.Write(p)
}

func (r readWatcher) WriteConn() net.Conn { return r.Conn }

// TestHeldSendSkipsReadWatchers: a held response is sent to the innermost
// connection a WriteThrough wrapper names (where a vector leaves with one
// writev), never through the wrapper.
func TestHeldSendSkipsReadWatchers(t *testing.T) {
	body := bytes.Repeat([]byte("b"), 9000)
	f := &fakeConn{}
	c := &Conn{Conn: readWatcher{Conn: readWatcher{Conn: f, t: t}, t: t}}
	c.Hold(body)
	c.Write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
	c.Write(body)
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if got, want := f.all(), append([]byte("HTTP/1.1 200 OK\r\n\r\n"), body...); !bytes.Equal(got, want) {
		t.Errorf("inner connection got %d bytes, want %d", len(got), len(want))
	}
}
