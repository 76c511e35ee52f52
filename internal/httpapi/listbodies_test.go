package httpapi

import (
	"encoding/json"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/registry"
)

// contentVersioned numbers an advisory map's states by its content, so the
// list tests that edit the map in place run through the list caches.
type contentVersioned struct{ m advMap }

func (a contentVersioned) Get(mint string) *asset.Advisory { return a.m[mint] }

func (a contentVersioned) Version() uint64 {
	keys := make([]string, 0, len(a.m))
	for k := range a.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := fnv.New64a()
	for _, k := range keys {
		h.Write([]byte(k + "\x00"))
		if v := a.m[k]; v != nil {
			h.Write([]byte(v.Status + "\x00" + v.Reason + "\x00"))
		}
	}
	return h.Sum64()
}

// List reads, compositions, the catalog and exports are encoded once per
// version: unchanged, the same bytes and ETag (and 304 on If-None-Match);
// a membership change, an advisory change and a catalog rebuild are each
// visible on the next read.
func TestListReadsEncodedPerVersion(t *testing.T) {
	h, adv := exportHarness(t)
	key := h.plain["read"]
	send := func(method, path, body string, want int) {
		t.Helper()
		if r := h.send(t, method, path, key, body); r.status != want {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.raw)
		}
	}
	send("POST", "/v2/lists", `{"slug":"cached","name":"Cached","status":"published"}`, 201)
	send("PUT", "/v2/lists/cached/members/"+mkUSDC, "", 201)

	paths := []string{"/v2/lists/cached", "/v2/lists/cached?limit=1&offset=0", "/v2/lists/tokens?lists=cached,majors",
		"/v2/lists", "/v2/lists/cached/tokenlist.json", "/v2/lists/majors"}
	read := func() map[string]resp {
		t.Helper()
		out := map[string]resp{}
		for _, p := range paths {
			r := h.get(t, p)
			if r.status != 200 || r.header.Get("ETag") == "" {
				t.Fatalf("%s: %d %v %s", p, r.status, r.header, r.raw)
			}
			out[p] = r
		}
		return out
	}
	first := read()
	again := read()
	for _, p := range paths {
		if again[p].raw != first[p].raw || again[p].header.Get("ETag") != first[p].header.Get("ETag") {
			t.Fatalf("%s: unchanged list, different body", p)
		}
		r := h.do(t, "GET", p, map[string]string{"X-Api-Key": key, "If-None-Match": first[p].header.Get("ETag")}, nil)
		if r.status != 304 || r.raw != "" {
			t.Fatalf("%s: If-None-Match of the current ETag: %d %q", p, r.status, r.raw)
		}
	}
	mints := func(r resp, field string) []string {
		t.Helper()
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.raw), &doc); err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			Mint    string `json:"mint"`
			Address string `json:"address"`
		}
		if err := json.Unmarshal(doc[field], &rows); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range rows {
			out = append(out, x.Mint+x.Address)
		}
		return out
	}
	if got := mints(first["/v2/lists/cached"], "tokens"); !slices.Equal(got, []string{mkUSDC}) {
		t.Fatalf("first read: %v", got)
	}

	// Membership change: visible on the next read of every surface.
	send("PUT", "/v2/lists/cached/members/"+mkSOL, "", 201)
	added := read()
	if got := mints(added["/v2/lists/cached"], "tokens"); !slices.Equal(got, []string{mkUSDC, mkSOL}) {
		t.Fatalf("after an add: %v", got)
	}
	if got := mints(added["/v2/lists/cached?limit=1&offset=0"], "tokens"); !slices.Equal(got, []string{mkUSDC}) {
		t.Fatalf("page after an add: %v", got)
	}
	if got := mints(added["/v2/lists/cached/tokenlist.json"], "tokens"); !slices.Equal(got, []string{mkUSDC, mkSOL}) {
		t.Fatalf("export after an add: %v", got)
	}
	if !strings.Contains(added["/v2/lists"].raw, `"slug":"cached"`) || added["/v2/lists"].raw == first["/v2/lists"].raw {
		t.Fatalf("catalog after an add: %s", added["/v2/lists"].raw)
	}
	if !slices.Contains(mints(added["/v2/lists/tokens?lists=cached,majors"], "tokens"), mkSOL) {
		t.Fatal("composition misses the added mint")
	}

	// Advisory change: a blocked mint leaves every list read at once.
	adv[mkSOL] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "synthetic", Since: 1}
	blocked := read()
	if got := mints(blocked["/v2/lists/cached"], "tokens"); !slices.Equal(got, []string{mkUSDC}) {
		t.Fatalf("after a block: %v", got)
	}
	if got := mints(blocked["/v2/lists/cached/tokenlist.json"], "tokens"); !slices.Equal(got, []string{mkUSDC}) {
		t.Fatalf("export after a block: %v", got)
	}
	if slices.Contains(mints(blocked["/v2/lists/tokens?lists=cached,majors"], "tokens"), mkSOL) ||
		slices.Contains(mints(blocked["/v2/lists/majors"], "tokens"), mkSOL) {
		t.Fatal("composition or curated list still holds the blocked mint")
	}
	delete(adv, mkSOL)
	if got := mints(h.get(t, "/v2/lists/cached"), "tokens"); !slices.Equal(got, []string{mkUSDC, mkSOL}) {
		t.Fatalf("after the block was lifted: %v", got)
	}

	// A catalog rebuild that leaves the registry snapshot and the
	// effective membership alone (a market refresh) keeps the curated
	// read; a new effective membership re-encodes it.
	h.get(t, "/v2/lists/majors")
	cached := func() *listEntry {
		t.Helper()
		deps, members, ok := h.srv.listDepsFor("majors")
		if !ok {
			t.Fatal("curated deps")
		}
		e := h.srv.listBodies.get("majors", deps)
		if e == nil || !slices.Equal(e.members, members) {
			return nil
		}
		return e
	}
	before := cached()
	if before == nil {
		t.Fatal("curated read not cached")
	}
	h.srv.d.Catalog.Rebuild()
	h.get(t, "/v2/lists/majors")
	if cached() != before {
		t.Fatal("curated read re-encoded though its membership did not move")
	}
	before.members = append([]registry.CuratedMember{{Mint: "changed"}}, before.members...) // as if the membership moved since
	if cached() != nil {
		t.Fatal("a membership change still matches")
	}
	if r := h.get(t, "/v2/lists/majors"); r.status != 200 || cached() == nil || cached() == before {
		t.Fatal("curated read not rebuilt after its membership moved")
	}
}

// A cached page is the same bytes as the uncached encoding of the same
// read.
func TestListPageMatchesEncoding(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	h.send(t, "POST", "/v2/lists", key, `{"slug":"same","name":"Same","status":"published"}`)
	h.send(t, "PUT", "/v2/lists/same/members/"+mkUSDC, key, `{"note":"a <note> & more"}`)
	h.send(t, "PUT", "/v2/lists/same/members/"+mkSOL, key, "")
	for _, q := range []string{"", "?limit=1", "?offset=1", "?offset=5", "?limit=2000"} {
		got := h.get(t, "/v2/lists/same"+q).raw
		rl, err := h.srv.d.ListReader.Read("same")
		if err != nil {
			t.Fatal(err)
		}
		off, lim := 0, 500
		switch q {
		case "?limit=1":
			lim = 1
		case "?offset=1":
			off = 1
		case "?offset=5":
			off = 5
		}
		a, b := pageBounds(off, lim, len(rl.Tokens))
		want, _, _ := encodeJSON(listDoc{rl.Summary, append(rl.Tokens[a:b:b], nil...)})
		if b == a {
			want, _, _ = encodeJSON(listDoc{rl.Summary, rl.Tokens[:0]})
		}
		if got != string(want) {
			t.Fatalf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
}

// countedMarkets numbers the market data's states (as the market cache
// does) for the search-tokens cache.
type countedMarkets struct {
	MarketData
	v *uint64
}

func (m countedMarkets) Version() (uint64, uint64, bool) { return *m.v, 0, true }

// A judged search-tokens answer is reused while every version it read
// holds and for at most searchTokensTTL; an advisory change, a market
// refresh, a community list change and the TTL each give a fresh
// judgment on the next request. latencyMs is each response's own.
func TestSearchTokensCachedPerVersion(t *testing.T) {
	h, adv := searchHarness(t, nil)
	var mv uint64 = 1
	h.srv.d.Markets = countedMarkets{MarketData: h.srv.d.Markets, v: &mv}
	vadv := contentVersioned{adv}
	h.srv.d.Advisories = vadv
	h.h = h.srv.build(nil)
	const path = "/v2/lists/search-tokens?q=USDC&policy=degen"
	first := h.get(t, path)
	if first.status != 200 {
		t.Fatalf("%d %s", first.status, first.raw)
	}
	entry := func() *judged {
		t.Helper()
		deps, ok := h.srv.searchDepsNow()
		if !ok {
			t.Fatal("search deps not versioned")
		}
		return h.srv.searchBodies.get([]byte("USDC\x00degen\x0010"), deps, h.now)
	}
	kept := entry()
	if kept == nil {
		t.Fatal("answer not kept")
	}
	h.get(t, path)
	if entry() != kept {
		t.Fatal("a repeated request judged again")
	}
	// The body without latencyMs is the uncached judgment's.
	strip := func(raw string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["latencyMs"]; !ok {
			t.Fatal("latencyMs missing")
		}
		delete(m, "latencyMs")
		return m
	}
	fresh, _ := json.Marshal(h.srv.d.Curator.Search(t.Context(), curator.Request{Query: "USDC", Policy: "degen", Limit: 10}))
	if a, b := strip(h.get(t, path).raw), strip(string(fresh)); !reflect.DeepEqual(a, b) {
		t.Fatalf("cached answer differs from a fresh judgment:\n%v\n%v", a, b)
	}
	steps := []struct {
		what   string
		change func()
	}{
		{"advisory change", func() {
			adv[mkIdxToken] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "synthetic", Since: 1}
		}},
		{"market refresh", func() { mv++ }},
		{"community list change", func() {
			h.send(t, "POST", "/v2/lists", h.plain["read"], `{"slug":"usdc-fans","name":"Fans","status":"published"}`)
			h.send(t, "PUT", "/v2/lists/usdc-fans/members/"+mkUSDC, h.plain["read"], "")
		}},
		{"ttl", func() { h.now = h.now.Add(searchTokensTTL) }},
	}
	for _, st := range steps {
		before := entry()
		st.change()
		r := h.get(t, path)
		if r.status != 200 {
			t.Fatalf("%s: %d", st.what, r.status)
		}
		after := entry()
		if after == nil || after == before {
			t.Fatalf("%s: answer not judged again", st.what)
		}
	}
	if r := h.get(t, path); !strings.Contains(r.raw, `"usdc-fans"`) || !strings.Contains(r.raw, `gate_advisory_blocked`) {
		t.Fatalf("fresh answer misses the list or the advisory: %s", r.raw)
	}
}
