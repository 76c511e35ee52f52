package httpapi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/assetd/assetd/internal/coalesce"
	"github.com/assetd/assetd/internal/ratelimit"
)

// Over a coalescing listener, a response with a body of coalesceMinBytes
// or more reaches the socket in one write, headers included; smaller
// ones in one write too (net/http's buffer holds them whole). The bytes
// are those written.
func TestResponsesLeaveInOneWrite(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 20_000)
	mid := bytes.Repeat([]byte("y"), coalesceMinBytes+100)
	// Past net/http's 4 KB buffer by less than a buffer: the rest stays
	// in the buffer until flushed.
	detail := bytes.Repeat([]byte("z"), 4600)
	small := bytes.Repeat([]byte("s"), coalesceMinBytes-1)
	h := newHarness(t, ratelimit.Policy{Requests: 1000, Window: 60e9},
		route{pattern: "GET /big", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			return writeBody(w, http.StatusOK, big, nil)
		}},
		route{pattern: "GET /mid", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			return writeBody(w, http.StatusOK, mid, nil)
		}},
		route{pattern: "GET /detail", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			return writeBody(w, http.StatusOK, detail, nil)
		}},
		route{pattern: "GET /small", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			return writeBody(w, http.StatusOK, small, nil)
		}},
		route{pattern: "GET /empty", scopes: read, handler: func(w http.ResponseWriter, r *http.Request) error {
			return writeBody(w, http.StatusOK, nil, nil)
		}})
	var (
		mu    sync.Mutex
		conns []*coalesce.Conn
	)
	ts := httptest.NewUnstartedServer(h.h)
	ts.Listener = coalesce.Listen(ts.Listener)
	ts.Config.ConnContext = coalesce.ConnContext
	ts.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns = append(conns, c.(*coalesce.Conn))
			mu.Unlock()
		}
	}
	ts.Start()
	defer ts.Close()

	nc, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	for _, tc := range []struct {
		path   string
		status int
		want   []byte
	}{
		{"/big", 200, big},
		{"/mid", 200, mid},
		{"/detail", 200, detail},
		{"/small", 200, small},
		{"/empty", 200, []byte{}},
		{"/big", 200, big},
		{"/nope", 404, nil},
	} {
		fmt.Fprintf(nc, "GET %s HTTP/1.1\r\nHost: x\r\nX-Api-Key: %s\r\n\r\n", tc.path, h.plain["read"])
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tc.status || (tc.want != nil && !bytes.Equal(b, tc.want)) {
			t.Fatalf("%s: %d, %d bytes, err %v", tc.path, resp.StatusCode, len(b), err)
		}
		// Every response says its length (net/http writes it for small
		// bodies), none is chunked.
		if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(b)) {
			t.Errorf("%s: transfer-encoding %v, content-length %d for %d bytes", tc.path, resp.TransferEncoding, resp.ContentLength, len(b))
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no x-request-id", tc.path)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != 1 {
		t.Fatalf("%d connections, want 1", len(conns))
	}
	if got := conns[0].Sends(); got != 7 {
		t.Errorf("writes reaching the socket = %d for 7 responses, want 7", got)
	}
}
