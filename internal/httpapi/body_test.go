package httpapi

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/klauspost/compress/gzip"
)

func TestConditionalAndCompressed(t *testing.T) {
	h, _, _ := marketHarness(t)
	key := h.plain["read"]
	for _, path := range []string{
		"/v1/assets/curated?list=all",
		"/v1/assets/curated?list=all&variants=all",
		"/v1/assets/curated?list=majors&groupBy=mint",
		"/v1/assets/search?q=sol",
		"/v1/assets/solana",
	} {
		t.Run(path, func(t *testing.T) {
			first := h.do(t, "GET", path, map[string]string{"X-Api-Key": key}, nil)
			etag := first.header.Get("ETag")
			if first.status != 200 || len(etag) != 18 || etag[0] != '"' {
				t.Fatalf("%d etag %q", first.status, etag)
			}
			if first.header.Get("Vary") != "Accept-Encoding" || first.header.Get("Content-Length") != strconv.Itoa(len(first.raw)) {
				t.Fatalf("vary %q content-length %q (body %d)", first.header.Get("Vary"), first.header.Get("Content-Length"), len(first.raw))
			}
			// The encoded body is reused: same bytes, same tag.
			again := h.do(t, "GET", path, map[string]string{"X-Api-Key": key}, nil)
			if again.raw != first.raw || again.header.Get("ETag") != etag {
				t.Fatal("a repeated request answered different bytes")
			}
			nm := h.do(t, "GET", path, map[string]string{"X-Api-Key": key, "If-None-Match": `"x", ` + etag}, nil)
			if nm.status != 304 || nm.raw != "" || nm.header.Get("ETag") != etag || nm.header.Get("Cache-Control") == "" {
				t.Fatalf("If-None-Match: %d %q %v", nm.status, nm.raw, nm.header)
			}
			if other := h.do(t, "GET", path, map[string]string{"X-Api-Key": key, "If-None-Match": `"0000000000000000"`}, nil); other.status != 200 {
				t.Fatalf("a stale tag answered %d", other.status)
			}
			gz := h.do(t, "GET", path, map[string]string{"X-Api-Key": key, "Accept-Encoding": "br;q=1, gzip;q=0.8"}, nil)
			if len(first.raw) < gzipMinBytes {
				if gz.header.Get("Content-Encoding") != "" {
					t.Fatal("a small body was compressed")
				}
				return
			}
			if gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("ETag") != etag ||
				gz.header.Get("Content-Length") != strconv.Itoa(len(gz.raw)) {
				t.Fatalf("gzip headers %v", gz.header)
			}
			zr, err := gzip.NewReader(bytes.NewReader([]byte(gz.raw)))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil || string(plain) != first.raw {
				t.Fatalf("gzip body does not decode to the plain body: %v", err)
			}
			t.Logf("%d bytes, gzip %d (%.1fx)", len(first.raw), len(gz.raw), float64(len(first.raw))/float64(len(gz.raw)))
		})
	}
}

// Curated gzip bodies are at least 4x smaller than the plain ones.
func TestCuratedGzipRatio(t *testing.T) {
	h, _, _ := marketHarness(t)
	for _, path := range []string{"/v1/assets/curated?list=all", "/v1/assets/curated?list=all&variants=all"} {
		plain := h.get(t, path)
		gz := h.do(t, "GET", path, map[string]string{"X-Api-Key": h.plain["read"], "Accept-Encoding": "gzip"}, nil)
		if ratio := float64(len(plain.raw)) / float64(len(gz.raw)); ratio < 4 {
			t.Errorf("%s: %d -> %d bytes, ratio %.2f < 4", path, len(plain.raw), len(gz.raw), ratio)
		}
	}
}

// Cached bodies are the bytes a fresh encoding writes, across versions.
func TestVersionedBodiesMatchFreshEncoding(t *testing.T) {
	h, _, _ := marketHarness(t)
	cached := h.get(t, "/v1/assets/curated?list=all&variants=all")
	fresh, _, err := encodeJSON(h.srv.curatedBody("all", "asset", true, false, "liquidity", false, 250, 0))
	if err != nil || cached.raw != string(fresh) {
		t.Fatalf("cached body differs from a fresh encoding (%v)", err)
	}
	v := h.srv.d.Catalog.Version()
	h.srv.d.Catalog.Rebuild()
	if h.srv.d.Catalog.Version() == v {
		t.Fatal("a rebuild kept the version")
	}
	next := h.get(t, "/v1/assets/curated?list=all&variants=all")
	if next.raw != cached.raw || next.header.Get("ETag") != cached.header.Get("ETag") {
		t.Fatal("an unchanged model gave new bytes or a new ETag")
	}
}

func TestErrorsAndUncacheableRoutesCarryNoETag(t *testing.T) {
	h, _, _ := marketHarness(t)
	for _, r := range []resp{
		h.get(t, "/v1/assets/curated?list=nope"),
		h.get(t, "/v1/assets/solana/risk-summary"),
		h.get(t, "/v1/health"),
	} {
		if r.header.Get("ETag") != "" || r.header.Get("Content-Encoding") != "" {
			t.Errorf("%d: %v", r.status, r.header)
		}
	}
}

func TestETagMatchesAndAcceptsGzip(t *testing.T) {
	const tag = `"0123456789abcdef"`
	for _, tc := range []struct {
		inm  string
		want bool
	}{
		{tag, true}, {"*", true}, {`W/` + tag, true}, {`"a", ` + tag, true}, {`"a"`, false}, {"", false}, {`0123456789abcdef`, false},
	} {
		if got := etagMatches(tc.inm, tag); got != tc.want {
			t.Errorf("etagMatches(%q) = %v", tc.inm, got)
		}
	}
	for _, tc := range []struct {
		ae   string
		want bool
	}{
		{"gzip", true}, {"GZIP", true}, {"deflate, gzip;q=0.5", true}, {"*", true}, {"gzip;q=0", false}, {"br", false}, {"", false},
		{"gzip; q=0.0", false},
	} {
		if got := acceptsGzip(tc.ae); got != tc.want {
			t.Errorf("acceptsGzip(%q) = %v", tc.ae, got)
		}
	}
}

// versionedAdv is an advisory map that numbers its states, as the
// advisory index does.
type versionedAdv struct {
	m advMap
	v uint64
}

func (a *versionedAdv) Get(mint string) *asset.Advisory { return a.m[mint] }
func (a *versionedAdv) Version() uint64                 { return a.v }

// Trending is encoded once per (trending set, advisory version): a new
// advisory version is served at once.
func TestTrendingEncodedPerVersion(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	adv := &versionedAdv{m: advMap{}}
	h.srv.d.Advisories = adv
	h.srv.RefreshTrending(h.now)
	first := h.get(t, "/v1/assets/trending")
	if again := h.get(t, "/v1/assets/trending"); again.raw != first.raw || first.header.Get("ETag") == "" {
		t.Fatal("same version, different body")
	}
	fresh, _, err := encodeJSON(h.srv.trendingBody(h.srv.trending.Load(), "", MaxTrendingLimit, 0))
	if err != nil || string(fresh) != first.raw {
		t.Fatal("cached trending body differs from a fresh encoding")
	}
	adv.m[mint] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "synthetic", Since: 1}
	adv.v++
	if got := trendingMints(t, h); len(got) != 0 {
		t.Fatalf("a blocked mint still trends after the advisory version moved: %v", got)
	}
}

// A search body cached for one catalog version is not served once the
// token index it read has been swapped.
func TestSearchCacheFollowsTokenIndex(t *testing.T) {
	h, _, _ := marketHarness(t)
	var cur atomic.Pointer[tokenindex.Index]
	cur.Store(new(tokenindex.Builder).Build())
	h.srv.d.Catalog.SetTokens(cur.Load)
	before := h.get(t, "/v1/assets/search?q=zzsynthetic")
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: syntheticMints(1)[0], Symbol: "ZZSYNTHETIC", Name: "Synthetic test token"})
	cur.Store(b.Build())
	after := h.get(t, "/v1/assets/search?q=zzsynthetic")
	if before.raw == after.raw || !strings.Contains(after.raw, "ZZSYNTHETIC") {
		t.Fatalf("search kept the body of the old token index:\n%s", after.raw)
	}
}
