package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestEncodeHeadersDropsOwnAndRoundTrips(t *testing.T) {
	h := http.Header{
		"Date": {"Tue, 24 Nov 2026 00:00:00 GMT"}, "Content-Length": {"12"}, "Connection": {"keep-alive"},
		"Etag": {`"abc"`}, "Vary": {"Accept-Encoding", "Origin"}, "X-Request-Id": {"r-1"},
	}
	got := string(encodeHeaders(h))
	want := "Etag: \"abc\"\nVary: Accept-Encoding\nVary: Origin\nX-Request-Id: r-1\n"
	if got != want {
		t.Fatalf("encodeHeaders = %q, want %q", got, want)
	}
	back, err := decodeHeaders([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back.Get("Etag") != `"abc"` || len(back["Vary"]) != 2 || back.Get("X-Request-Id") != "r-1" {
		t.Fatalf("decodeHeaders = %v", back)
	}
	if _, err := decodeHeaders([]byte("no separator\n")); err == nil {
		t.Fatal("decodeHeaders accepted a line without ': '")
	}
}

// TestServeReplaysHeaders: -serve answers with the captured headers and
// body, and -body-only with the body, Content-Type and Content-Length.
func TestServeReplaysHeaders(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(`{"id":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hdrs := "Cache-Control: private, max-age=30\nContent-Type: application/json\nEtag: \"e1\"\nX-Request-Id: r-1\n"
	if err := os.WriteFile(filepath.Join(dir, "detail.headers"), []byte(hdrs), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bodyOnly := range []bool{false, true} {
		mux, err := bodiesMux(dir, bodyOnly)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", "/detail", nil))
		if rec.Code != 200 || rec.Body.String() != `{"id":"x"}` || rec.Header().Get("Content-Length") != "10" ||
			rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("bodyOnly=%v: %d %v %q", bodyOnly, rec.Code, rec.Header(), rec.Body)
		}
		etag, id := rec.Header().Get("Etag"), rec.Header().Get("X-Request-Id")
		if bodyOnly != (etag == "" && id == "") || !bodyOnly && (etag != `"e1"` || id != "r-1" ||
			rec.Header().Get("Cache-Control") != "private, max-age=30") {
			t.Fatalf("bodyOnly=%v: headers %v", bodyOnly, rec.Header())
		}
	}
}
