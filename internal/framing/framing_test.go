package framing

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// chunkConn is a net.Conn whose reads return the given chunks in turn.
type chunkConn struct {
	net.Conn
	chunks []string
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

func bytewise(s string) []string {
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i : i+1]
	}
	return out
}

const mark = Marker + ": content-length-and-transfer-encoding\r\n"

func TestMarksAmbiguousHeads(t *testing.T) {
	get := "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
	clte := "POST /v1/internal/trades HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n"
	chunked := "5\r\nhello\r\n0\r\n\r\n"
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"plain GET", []string{get}, get},
		{"Content-Length then Transfer-Encoding", []string{clte + "\r\n" + chunked}, clte + mark + "\r\n" + chunked},
		{"Transfer-Encoding then Content-Length", []string{"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n" + chunked},
			"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n" + mark + "\r\n" + chunked},
		{"HTTP/1.0 (net/http reads Content-Length)", []string{"POST / HTTP/1.0\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello"},
			"POST / HTTP/1.0\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n" + mark + "\r\nhello"},
		{"names in other cases, padded value", []string{"POST / HTTP/1.1\r\ncontent-length:      5\r\nTRANSFER-ENCODING: Chunked\r\n\r\n" + chunked},
			"POST / HTTP/1.1\r\ncontent-length:      5\r\nTRANSFER-ENCODING: Chunked\r\n" + mark + "\r\n" + chunked},
		{"one byte per read", bytewise(get + clte + "\r\n" + chunked), get + clte + mark + "\r\n" + chunked},
		{"the last line's CR ends a read", []string{clte + "\r", "\n" + chunked}, clte + mark + "\r\n" + chunked},
		{"LF line ends", []string{"POST / HTTP/1.1\nContent-Length: 5\nTransfer-Encoding: chunked\n\n" + chunked},
			"POST / HTTP/1.1\nContent-Length: 5\nTransfer-Encoding: chunked\n" + mark + "\n" + chunked},
		{"header-like bytes in a Content-Length body", []string{
			"POST / HTTP/1.1\r\nContent-Length: 49\r\n\r\nX: y\r\nContent-Length: 5\r\nTransfer-Encoding: x\r\n\r\n" + get},
			"POST / HTTP/1.1\r\nContent-Length: 49\r\n\r\nX: y\r\nContent-Length: 5\r\nTransfer-Encoding: x\r\n\r\n" + get},
		{"a chunked body, then an ambiguous head", []string{
			"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n19\r\nContent-Length: 5\r\n\r\nabcd\r\n0\r\n\r\n" + clte + "\r\n" + chunked},
			"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n19\r\nContent-Length: 5\r\n\r\nabcd\r\n0\r\n\r\n" + clte + mark + "\r\n" + chunked},
		{"chunk extensions and trailers, then an ambiguous head", bytewise(
			"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n" + clte + "\r\n" + chunked),
			"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n" + clte + mark + "\r\n" + chunked},
		{"names inside other names are not the headers", bytewise(
			"POST / HTTP/1.1\r\nX-Content-Length: 5\r\nX-Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello" + get),
			"POST / HTTP/1.1\r\nX-Content-Length: 5\r\nX-Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello" + get},
		{"only Content-Length, then only Transfer-Encoding", []string{
			"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + get},
			"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + get},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{1, 7, 4096} { // the reader's buffer size
				c := &conn{Conn: &chunkConn{chunks: append([]string(nil), tt.chunks...)}}
				var got strings.Builder
				buf := make([]byte, size)
				for range 100_000 {
					n, err := c.Read(buf)
					got.Write(buf[:n])
					if err == io.EOF {
						break
					}
				}
				if got.String() != tt.want {
					t.Errorf("buffer %d:\n got %q\nwant %q", size, got.String(), tt.want)
				}
			}
		})
	}
}

// TestServerSeesMarker: behind Listen, a handler of net/http sees Marker
// on a request with both Content-Length and Transfer-Encoding (which
// net/http alone turns into a plain chunked request) and on nothing else.
func TestServerSeesMarker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get(Marker) != "" {
			w.Header().Set("Connection", "close")
			w.WriteHeader(400)
			return
		}
		w.Write(b)
	})}
	go srv.Serve(Listen(ln))
	t.Cleanup(func() { srv.Close() })
	for _, tc := range []struct {
		name, req string
		status    []int
	}{
		{"both", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", []int{400}},
		{"HTTP/1.0, both", "POST / HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello", []int{400}},
		{"chunked, then both", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" +
			"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", []int{200, 400}},
		{"Content-Length, then chunked", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
			"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", []int{200, 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.req); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			for i, want := range tc.status {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("response %d: %v", i, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != want {
					t.Errorf("response %d: %d, want %d", i, resp.StatusCode, want)
				}
			}
		})
	}
}

// BenchmarkHead: the cost the watch adds to a typical API request head.
func BenchmarkHead(b *testing.B) {
	head := []byte("GET /v1/assets/bitcoin?include=profile,risk HTTP/1.1\r\nHost: api.example.test\r\nUser-Agent: bench\r\n" +
		"Accept: application/json\r\nAccept-Encoding: gzip\r\nX-Api-Key: ak_0123456789abcdef0123456789abcdef\r\n\r\n")
	c := &conn{}
	c.startHead()
	b.SetBytes(int64(len(head)))
	for b.Loop() {
		if out, rest := c.scan(head); out != len(head) || rest != nil {
			b.Fatal("marked")
		}
	}
}

// TestWritesReachTheTCPConn: an accepted connection names the TCP
// connection its writes reach unchanged (internal/coalesce sends held
// responses there, where they leave with one writev).
func TestWritesReachTheTCPConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	c, err := Listen(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, ok := c.(interface{ WriteConn() net.Conn })
	if !ok {
		t.Fatalf("%T does not name the connection its writes reach", c)
	}
	if _, ok := w.WriteConn().(*net.TCPConn); !ok {
		t.Errorf("WriteConn is %T, want *net.TCPConn", w.WriteConn())
	}
}
