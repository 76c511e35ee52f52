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
	dir := captured(t, `{"id":"x"}`, "Cache-Control: private, max-age=30\nContent-Type: application/json\nEtag: \"e1\"\nX-Request-Id: r-1\n")
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

// TestServeAnswersNotModified: an If-None-Match of the captured ETag gets
// a 304 with no body and no body headers; any other value the 200.
func TestServeAnswersNotModified(t *testing.T) {
	dir := captured(t, `{"id":"x"}`, "Cache-Control: private, max-age=30\nContent-Type: application/json\nEtag: \"e1\"\nVary: Accept-Encoding\n")
	mux, err := bodiesMux(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		inm  string
		code int
	}{{`"e1"`, 304}, {`"e2"`, 200}, {"", 200}} {
		req := httptest.NewRequest("GET", "/detail", nil)
		if tc.inm != "" {
			req.Header.Set("If-None-Match", tc.inm)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Fatalf("If-None-Match %q: %d, want %d", tc.inm, rec.Code, tc.code)
		}
		h := rec.Header()
		if tc.code == 304 && (rec.Body.Len() != 0 || h.Get("Content-Type") != "" || h.Get("Content-Length") != "" ||
			h.Get("Etag") != `"e1"` || h.Get("Vary") != "Accept-Encoding" || h.Get("Cache-Control") != "private, max-age=30") {
			t.Fatalf("304: headers %v body %q", h, rec.Body)
		}
		if tc.code == 200 && rec.Body.String() != `{"id":"x"}` {
			t.Fatalf("200: body %q", rec.Body)
		}
	}
}

// captured is a capture directory holding detail.json and its headers.
func captured(t *testing.T, body, headers string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "detail.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "detail.headers"), []byte(headers), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
