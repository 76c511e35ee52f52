package httpapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/curator"
)

// A kept search-tokens answer carries each response's own latencyMs, and
// still: the ETag is the CRC-64 of the exact bytes sent, the gzip form
// (spliced from pieces compressed once) decodes, with a valid CRC and
// size, to the plain bytes of that latency, and an If-None-Match of the
// current ETag is a 304.
func TestSearchTokensKeptAnswerBytes(t *testing.T) {
	h, adv := searchHarness(t, nil)
	var mv uint64 = 1
	h.srv.d.Markets = countedMarkets{MarketData: h.srv.d.Markets, v: &mv}
	h.srv.d.Advisories = contentVersioned{adv}
	const path = "/v2/lists/search-tokens?q=USDC&policy=degen&limit=20"
	// A clock that moves 0.25 ms more at each reading than at the one
	// before: every response's latency differs from the previous one's.
	at, d := h.now, time.Duration(0)
	h.srv.d.Now = func() time.Time { d += 250 * time.Microsecond; at = at.Add(d); return at }
	h.h = h.srv.build(nil)
	key := map[string]string{"X-Api-Key": h.plain["read"]}
	first := h.do(t, "GET", path, key, nil)
	if first.status != 200 {
		t.Fatalf("%d %s", first.status, first.raw)
	}
	if _, ok := h.srv.searchDepsNow(); !ok {
		t.Fatal("search deps not versioned: answers are not kept")
	}
	lat := map[string]bool{}
	for i := range 3 {
		r := h.do(t, "GET", path, key, nil)
		if got, want := r.header.Get("Etag"), strongETag([]byte(r.raw)); got != want {
			t.Fatalf("plain %d: ETag %s, CRC-64 of the body %s", i, got, want)
		}
		if !strings.HasSuffix(r.raw, "}\n") || r.body["latencyMs"] == nil {
			t.Fatalf("plain %d: %s", i, r.raw)
		}
		lat[r.header.Get("Etag")] = true

		hdr := map[string]string{"X-Api-Key": h.plain["read"], "Accept-Encoding": "gzip"}
		req := h.do(t, "GET", path, hdr, nil)
		if req.header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("gzip %d: not compressed: %v", i, req.header)
		}
		zr, err := gzip.NewReader(strings.NewReader(req.raw))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr) // checks the trailer's CRC-32 and size
		if err != nil {
			t.Fatalf("gzip %d: %v", i, err)
		}
		if got, want := req.header.Get("Etag"), strongETag(plain); got != want {
			t.Fatalf("gzip %d: ETag %s, CRC-64 of the plain body %s", i, got, want)
		}
		if !bytes.Equal(plain[:bytes.Index(plain, []byte(`"latencyMs":`))], []byte(first.raw[:strings.Index(first.raw, `"latencyMs":`)])) {
			t.Fatalf("gzip %d: decoded body differs from the plain one:\n%s\n%s", i, plain, first.raw)
		}
	}
	if len(lat) < 2 {
		t.Fatalf("every response had the same latency: %v", lat)
	}
	// A fixed clock: the same bytes, so the same ETag, and a 304.
	h.srv.d.Now = func() time.Time { return h.now }
	h.h = h.srv.build(nil)
	r := h.do(t, "GET", path, key, nil)
	hdr := map[string]string{"X-Api-Key": h.plain["read"], "If-None-Match": r.header.Get("Etag")}
	if nm := h.do(t, "GET", path, hdr, nil); nm.status != 304 || nm.raw != "" {
		t.Fatalf("If-None-Match of the current ETag: %d %q", nm.status, nm.raw)
	}
}

// tradedMarkets is a market cache whose analytics (trades) move while its
// own version holds.
type tradedMarkets struct {
	MarketData
	trades *uint64
}

func (m tradedMarkets) Version() (uint64, uint64, bool) { return 1, *m.trades, true }

// A trade does not re-judge kept answers: they show trades at most
// searchTokensTTL late.
func TestSearchTokensKeptAcrossTrades(t *testing.T) {
	h, adv := searchHarness(t, nil)
	var trades uint64 = 1
	h.srv.d.Markets = tradedMarkets{MarketData: h.srv.d.Markets, trades: &trades}
	h.srv.d.Advisories = contentVersioned{adv}
	h.h = h.srv.build(nil)
	const path = "/v2/lists/search-tokens?q=USDC"
	entry := func() *judged {
		t.Helper()
		deps, ok := h.srv.searchDepsNow()
		if !ok {
			t.Fatal("search deps not versioned")
		}
		return h.srv.searchBodies.get([]byte("USDC\x00strict\x0010"), deps, h.now)
	}
	if r := h.get(t, path); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	kept := entry()
	if kept == nil {
		t.Fatal("answer not kept")
	}
	trades += 5
	h.get(t, path)
	if entry() != kept {
		t.Fatal("a trade re-judged the answer")
	}
	h.now = h.now.Add(searchTokensTTL)
	h.get(t, path)
	if e := entry(); e == nil || e == kept {
		t.Fatal("the TTL did not re-judge the answer")
	}
}

// Spellings of a query with the same interpretation share one judgment;
// each answer names its own query and equals a fresh judgment of it.
func TestSearchTokensShareJudgmentAcrossSpellings(t *testing.T) {
	h, adv := searchHarness(t, nil)
	var mv uint64 = 1
	h.srv.d.Markets = countedMarkets{MarketData: h.srv.d.Markets, v: &mv}
	h.srv.d.Advisories = contentVersioned{adv}
	h.h = h.srv.build(nil)
	for _, q := range []string{"usdc", "USDC", "%24usdc", "%24USDC%22"} {
		r := h.get(t, "/v2/lists/search-tokens?policy=degen&q="+q)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", q, r.status, r.raw)
		}
		sent, _ := url.QueryUnescape(q)
		fresh, _ := json.Marshal(h.srv.d.Curator.Search(t.Context(), curator.Request{Query: sent, Policy: "degen", Limit: 10}))
		var got, want map[string]any
		if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(fresh, &want); err != nil {
			t.Fatal(err)
		}
		delete(got, "latencyMs")
		delete(want, "latencyMs")
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: kept answer differs from a fresh judgment:\n%v\n%v", sent, got, want)
		}
		if r.header.Get("Etag") != strongETag([]byte(r.raw)) {
			t.Fatalf("%s: ETag is not the body's", sent)
		}
	}
	// USDC, $usdc and usdc share one judgment; USDC" is another query.
	if n := len(h.srv.searchJudged.m); n != 2 {
		t.Fatalf("%d judgments kept for two interpretations", n)
	}
	if n := len(h.srv.searchBodies.m); n != 4 {
		t.Fatalf("%d answers kept for four queries", n)
	}
}
