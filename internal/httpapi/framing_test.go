package httpapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/framing"
	"github.com/assetd/assetd/internal/ratelimit"
)

// TestAmbiguousFramingRefused sends raw requests over TCP to the API
// behind framing.Listen (as cmd/assetd serves it): a request carrying both
// Content-Length and Transfer-Encoding, in either order and on HTTP/1.0
// too, is 400 ambiguous_framing with the connection closed; net/http alone
// would hand it to the handler as a plain chunked request. Requests with
// one of the two, before it on the same connection, are served.
func TestAmbiguousFramingRefused(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h.h, ReadHeaderTimeout: time.Minute}
	go srv.Serve(framing.Listen(ln))
	t.Cleanup(func() { srv.Close() })

	const (
		health  = "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
		chunked = "5\r\nhello\r\n0\r\n\r\n"
	)
	type reply struct {
		status int
		code   string // details.code of an error envelope
	}
	refused := reply{400, "ambiguous_framing"}
	tests := []struct {
		name  string
		req   string
		want  []reply
		close bool // the server closes after the last reply
	}{
		{"Content-Length then Transfer-Encoding", "GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked,
			[]reply{refused}, true},
		{"Transfer-Encoding then Content-Length", "GET /v1/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 16\r\n\r\n" + chunked,
			[]reply{refused}, true},
		{"HTTP/1.0", "GET /v1/health HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello",
			[]reply{refused}, true},
		{"after a chunked and a Content-Length request", "GET /v1/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked +
			"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
			"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + health,
			[]reply{{200, ""}, {200, ""}, refused}, true},
		{"only one of them", health + "GET /v1/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + health,
			[]reply{{200, ""}, {200, ""}, {200, ""}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tt.req); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			for i, want := range tt.want {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("reply %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var env struct {
					Error struct {
						Tag     string         `json:"_tag"`
						Details map[string]any `json:"details"`
					} `json:"error"`
				}
				_ = json.Unmarshal(body, &env)
				code, _ := env.Error.Details["code"].(string)
				if resp.StatusCode != want.status || code != want.code {
					t.Errorf("reply %d: %d %q %s; want %d %q", i, resp.StatusCode, code, body, want.status, want.code)
				}
				if want.status == 400 && (env.Error.Tag != "BadRequestError" || resp.Header.Get("X-Request-Id") == "" || !resp.Close) {
					t.Errorf("reply %d: tag %q, x-request-id %q, close %v", i, env.Error.Tag, resp.Header.Get("X-Request-Id"), resp.Close)
				}
			}
			if tt.close {
				c.SetReadDeadline(time.Now().Add(time.Minute)) // generous: a closed connection reads EOF at once
				if n, err := br.ReadByte(); err != io.EOF {
					t.Errorf("connection still open after the refusal: %v %v", n, err)
				}
			}
		})
	}
}
