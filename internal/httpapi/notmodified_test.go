package httpapi

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestReqHeaderIsGetForCanonicalKeys(t *testing.T) {
	h := http.Header{}
	h.Add("x-api-key", "k1")
	h.Add("If-None-Match", `"a"`)
	h.Add("If-None-Match", `"b"`)
	h["X-Request-Id"] = []string{}
	for _, key := range []string{"X-Api-Key", "If-None-Match", "X-Request-Id", "Accept-Encoding"} {
		if got, want := reqHeader(h, key), h.Get(key); got != want {
			t.Errorf("reqHeader(%q) = %q, Get %q", key, got, want)
		}
	}
}

// TestNotModifiedOverTheWire: request headers sent in lower case on a
// real connection (net/http canonicalises them) still authenticate,
// match If-None-Match and carry the request id; the 304 has no
// Content-Type and no body, the 200 has both, and both are recorded as
// usage.
func TestNotModifiedOverTheWire(t *testing.T) {
	h, _, _ := marketHarness(t)
	ts := httptest.NewServer(h.h)
	t.Cleanup(ts.Close)
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	send := func(extra string) *http.Response {
		t.Helper()
		req := "GET /v1/assets/solana HTTP/1.1\r\nhost: x\r\nx-api-key: " + h.plain["read"] + "\r\nx-request-id: wire-1\r\n" + extra + "\r\n"
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r
	}
	before := len(h.usage.all())
	ok := send("")
	etag := ok.Header.Get("ETag")
	if ok.StatusCode != 200 || etag == "" || ok.Header.Get("Content-Type") != "application/json" || ok.Header.Get("X-Request-Id") != "wire-1" {
		t.Fatalf("200: %d %v", ok.StatusCode, ok.Header)
	}
	nm := send("if-none-match: " + etag + "\r\n")
	if nm.StatusCode != 304 || nm.Header.Get("ETag") != etag || nm.Header.Get("Content-Type") != "" || nm.ContentLength > 0 ||
		nm.Header.Get("Vary") != "Accept-Encoding" || nm.Header.Get("Cache-Control") == "" || nm.Header.Get("X-Request-Id") != "wire-1" {
		t.Fatalf("304: %d %v", nm.StatusCode, nm.Header)
	}
	recs := h.usage.all()[before:]
	if len(recs) != 2 || recs[0].Status != 200 || recs[1].Status != 304 || !recs[1].Charged {
		t.Fatalf("usage %+v, want the 200 and the charged 304", recs)
	}
}
