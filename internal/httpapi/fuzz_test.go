package httpapi

import (
	"errors"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/ratelimit"
)

// FuzzRequestID: an accepted caller id is 1..128 safe characters and is
// echoed; anything else is replaced.
func FuzzRequestID(f *testing.F) {
	for _, s := range []string{"abc", "", strings.Repeat("x", 128), strings.Repeat("x", 129), "a b", "ü", "id:1.2_3-4", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := safeRequestID(s)
		if ok && (len(s) == 0 || len(s) > 128 || strings.ContainsAny(s, " \t\r\n\"'<>;,")) {
			t.Fatalf("accepted unsafe id %q", s)
		}
		for _, c := range []byte(s) {
			if ok && c >= 0x80 {
				t.Fatalf("accepted non-ASCII id %q", s)
			}
		}
	})
}

// FuzzDecodeBody: any body yields 200 or a 4xx envelope, never a 5xx.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{`{"mints":["a"]}`, `{`, `[]`, `null`, `{"mints":null}`, `{"mints":[1]}`, `"x"`, `{} {}`, "\xff"} {
		f.Add(s, "application/json")
	}
	f.Add(`{}`, "text/plain")
	h := newHarness(f, ratelimit.Policy{}, testRoutes()...)
	f.Fuzz(func(t *testing.T, body, ct string) {
		req := httptest.NewRequest("POST", "/test/body", strings.NewReader(body))
		req.Header.Set("X-Api-Key", h.plain["read"])
		req.Header.Set("Content-Type", ct)
		rec := h.serve(t, req)
		if rec.Code != 200 && (rec.Code < 400 || rec.Code >= 500) {
			t.Fatalf("status %d for body %q: %s", rec.Code, body, rec.Body)
		}
		if rec.Code != 200 && !strings.Contains(rec.Body.String(), `"_tag":"BadRequestError"`) {
			t.Fatalf("error without envelope: %s", rec.Body)
		}
	})
}

// FuzzLimitParam: the limit rule (docs/errors.md). Any value that parses
// as a decimal integer is accepted and clamped into [lo, hi]; anything
// else is a 400. Offsets accept only non-negative integers.
func FuzzLimitParam(f *testing.F) {
	for _, s := range []string{"0", "-1", "10", "51", "1.5", "ten", "", "+3", "99999999999999999999999", "-99999999999999999999999", " 5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := url.Values{"limit": {s}}
		n, err := limitParam(q, "limit", 10, 1, 50)
		_, perr := strconv.ParseInt(s, 10, 64)
		isInt := perr == nil || errors.Is(perr, strconv.ErrRange)
		switch {
		case s == "":
			if err != nil || n != 10 {
				t.Fatalf("absent: %d %v", n, err)
			}
		case isInt && (err != nil || n < 1 || n > 50):
			t.Fatalf("integer %q: %d %v; want clamped into 1..50", s, n, err)
		case !isInt && err == nil:
			t.Fatalf("non-integer %q accepted as %d", s, n)
		}
		o, err := offsetParam(url.Values{"offset": {s}}, "offset")
		if err == nil && (o < 0 || o > maxOffset) {
			t.Fatalf("offset %q: %d", s, o)
		}
	})
}
