package httpapi

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Synthetic mints of the token index (base58 shapes, not real tokens).
const (
	mkIdxToken = "Syn1dx1111111111111111111111111111111111111"
	mkNulToken = "SynNu11111111111111111111111111111111111111"
	mkBadLogo  = "SynLogo111111111111111111111111111111111111"
)

// fakeMeta is a live metadata provider: it counts calls, may hang until
// the caller gives up, and answers hostile metadata for mkNulToken.
type fakeMeta struct {
	calls atomic.Int64
	hang  bool
	mu    sync.Mutex
	found map[string]market.TokenMeta
}

func (f *fakeMeta) Lookup(ctx context.Context, mints []string) (map[string]market.TokenMeta, error) {
	f.calls.Add(1)
	if f.hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]market.TokenMeta{}
	for _, m := range mints {
		if t, ok := f.found[m]; ok {
			out[m] = t
		}
	}
	return out, nil
}

func (f *fakeMeta) Search(ctx context.Context, q string, limit int) ([]market.TokenMeta, error) {
	f.calls.Add(1)
	return nil, nil
}

func hostileMeta() *fakeMeta {
	nine := 9
	return &fakeMeta{found: map[string]market.TokenMeta{
		mkNulToken: {Mint: mkNulToken, Symbol: "BAD\x00SYM", Name: "Evil\u202e Name\x07", Decimals: &nine, LogoURI: "javascript:alert(1)"},
		mkBadLogo:  {Mint: mkBadLogo, Symbol: "LOGO", Name: "Logo", LogoURI: "data:image/png;base64,AAAA"},
	}}
}

func TestMemberPutChecksListFirst(t *testing.T) {
	h, _, other := listHarness(t)
	key := h.plain["read"]
	meta := &fakeMeta{hang: true}
	h.srv.d.Metadata = meta
	h.srv.d.ListsConfig.LookupTimeout = 20 * time.Millisecond
	if r := h.send(t, "POST", "/v2/lists", key, `{"slug":"mine","name":"Mine"}`); r.status != 201 {
		t.Fatal(r.raw)
	}
	// A missing list: 404 and no upstream lookup.
	for range 5 {
		if r := h.send(t, "PUT", "/v2/lists/nowhere/members/"+mkUnknown, key, ""); r.status != 404 {
			t.Fatalf("missing list: %d %s", r.status, r.raw)
		}
	}
	// Another project's key: 403 not_owner and no upstream lookup.
	if r := h.send(t, "PUT", "/v2/lists/mine/members/"+mkUnknown, other, ""); r.status != 403 || errCode(r) != "not_owner" {
		t.Fatalf("foreign key: %d %s", r.status, r.raw)
	}
	if n := meta.calls.Load(); n != 0 {
		t.Fatalf("%d upstream lookups before the list and owner were checked", n)
	}
	// A hanging upstream: the wait is bounded and the mint is unknown.
	if r := h.send(t, "PUT", "/v2/lists/mine/members/"+mkUnknown, key, ""); r.status != 400 || errCode(r) != "unknown_mint" {
		t.Fatalf("hanging upstream: %d %s", r.status, r.raw)
	}
	if n := meta.calls.Load(); n != 1 {
		t.Fatalf("upstream lookups = %d, want 1", n)
	}
	// Live lookups spend the batch budget (3 per window in the harness).
	for range 2 {
		h.send(t, "PUT", "/v2/lists/mine/members/"+mkUnknown, key, "")
	}
	r := h.send(t, "PUT", "/v2/lists/mine/members/"+mkUnknown, key, "")
	if r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("over budget: %d %s (Retry-After %q)", r.status, r.raw, r.header.Get("Retry-After"))
	}
	// Registry mints need no lookup and no budget.
	if r := h.send(t, "PUT", "/v2/lists/mine/members/"+mkUSDC, key, ""); r.status != 201 {
		t.Fatalf("registry mint over budget: %d %s", r.status, r.raw)
	}
}

func TestMemberMetadataIsCleaned(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	h.srv.d.Metadata = hostileMeta()
	if r := h.send(t, "POST", "/v2/lists", key, `{"slug":"mine","name":"Mine"}`); r.status != 201 {
		t.Fatal(r.raw)
	}
	r := h.send(t, "PUT", "/v2/lists/mine/members/"+mkNulToken, key, "")
	if r.status != 201 || r.body["symbol"] != "BADSYM" || r.body["name"] != "Evil Name" || r.body["logoURI"] != nil || r.body["decimals"] != 9.0 {
		t.Fatalf("hostile metadata stored as %d %s", r.status, r.raw)
	}
	// One hostile mint never fails a batch.
	body := `{"mints":["` + mkBadLogo + `","` + mkUSDC + `"]}`
	r = h.send(t, "POST", "/v2/lists/mine/members", key, body)
	if r.status != 200 || len(r.body["added"].([]any)) != 2 || len(r.body["failed"].([]any)) != 0 {
		t.Fatalf("bulk with a hostile mint: %d %s", r.status, r.raw)
	}
	d := h.get(t, "/v2/lists/mine")
	if strings.Contains(d.raw, `\u0000`) || strings.Contains(d.raw, "javascript:") || strings.Contains(d.raw, "data:image") {
		t.Fatalf("served hostile metadata: %s", d.raw)
	}
}

func TestMemberResolvesThroughTokenIndex(t *testing.T) {
	h, _, _ := listHarness(t)
	key := h.plain["read"]
	meta := &fakeMeta{}
	h.srv.d.Metadata = meta
	var b tokenindex.Builder
	six := 6
	b.Add(tokenindex.Token{Mint: mkIdxToken, Symbol: "IDX", Name: "Synthetic index token", Decimals: &six, LogoURI: "https://img.example/" + mkIdxToken + ".png"})
	x := b.Build()
	h.srv.d.Tokens = func() *tokenindex.Index { return x }
	if r := h.send(t, "POST", "/v2/lists", key, `{"slug":"mine","name":"Mine"}`); r.status != 201 {
		t.Fatal(r.raw)
	}
	r := h.send(t, "PUT", "/v2/lists/mine/members/"+mkIdxToken, key, "")
	if r.status != 201 || r.body["symbol"] != "IDX" || r.body["verified"] != false || r.body["decimals"] != 6.0 ||
		r.body["logoURI"] != "https://img.example/"+mkIdxToken+".png" {
		t.Fatalf("index mint: %d %s", r.status, r.raw)
	}
	if meta.calls.Load() != 0 {
		t.Fatal("the provider was asked for a mint the token index knows")
	}
}

// searchHarness serves search-tokens over the seed registry with a token
// index holding a USDC impostor.
func searchHarness(t *testing.T, provider curator.ProviderSearch) (*harness, advMap) {
	t.Helper()
	h, adv, _ := listHarness(t)
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: mkIdxToken, Symbol: "USDC", Name: "USD Coin"})
	x := b.Build()
	cfg := curator.Config{Registry: h.srv.d.Catalog.Snapshot, Index: func() *tokenindex.Index { return x }, Advisories: adv,
		Lists: h.srv.d.ListViews, Now: func() time.Time { return h.now }}
	if provider != nil {
		cfg.Provider = provider
	}
	h.srv.d.Curator = curator.New(cfg)
	h.h = h.srv.build(nil)
	return h, adv
}

func TestSearchTokensEndpoint(t *testing.T) {
	h, adv := searchHarness(t, nil)
	r := h.get(t, "/v2/lists/search-tokens?q=USDC&policy=degen")
	if r.status != 200 || r.header.Get("Cache-Control") != cacheLists {
		t.Fatalf("status %d, cache %q: %s", r.status, r.header.Get("Cache-Control"), r.raw)
	}
	for _, k := range []string{"query", "interpretation", "policy", "policyVersion", "scoringVersion", "sources", "latencyMs", "results", "suppressed"} {
		if _, ok := r.body[k]; !ok {
			t.Errorf("response lacks %s", k)
		}
	}
	in := r.body["interpretation"].(map[string]any)
	if in["intent"] != "ticker" || in["normalizedQuery"] != "USDC" || in["hadSuspiciousCharacters"] != false {
		t.Errorf("interpretation %v", in)
	}
	src := r.body["sources"].(map[string]any)
	if src["provider"] != "disabled" || src["db"] != "ok" || src["registry"] != "ok" {
		t.Errorf("sources %v", src)
	}
	res := r.body["results"].([]any)
	first := res[0].(map[string]any)
	if first["mint"] != mkUSDC || first["verified"] != true {
		t.Fatalf("first result %v", first)
	}
	// The reference's shapes: attestations carry code (and kind); the
	// market block carries decimals and logoURI (the seed's USDC: 6 and
	// its token-list logo).
	for _, a := range first["claims"].(map[string]any)["attestations"].([]any) {
		if a := a.(map[string]any); a["code"] == nil || a["code"] != a["kind"] {
			t.Errorf("attestation %v: code is not the kind", a)
		}
	}
	if m := first["market"].(map[string]any); m["decimals"] != 6.0 || !strings.HasPrefix(fmt.Sprint(m["logoURI"]), "https://") {
		t.Errorf("market block %v: want decimals 6 and a logo", m)
	}
	var impostor map[string]any
	for _, x := range res {
		if x.(map[string]any)["mint"] == mkIdxToken {
			impostor = x.(map[string]any)
		}
	}
	if impostor == nil || !strings.Contains(r.raw, "possible_impersonation") {
		t.Fatalf("degen does not show the impostor with possible_impersonation: %s", r.raw)
	}
	// Strict (the default) suppresses it.
	r = h.get(t, "/v2/lists/search-tokens?q=usdc")
	if r.body["policy"] != "strict" || !strings.Contains(r.raw, `"gate_impersonation"`) {
		t.Fatalf("strict: %s", r.raw)
	}
	// A blocked mint is suppressed under every policy.
	adv[mkUSDC] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: "test"}
	for _, p := range curator.PolicyNames {
		r = h.get(t, "/v2/lists/search-tokens?q=USDC&policy="+p)
		if !strings.Contains(r.raw, `"suppressedBy":["gate_advisory_blocked"]`) {
			t.Fatalf("%s: blocked USDC not suppressed: %s", p, r.raw)
		}
	}
	// Bad inputs.
	for path, code := range map[string]string{
		"/v2/lists/search-tokens":                               "missing_param",
		"/v2/lists/search-tokens?q=" + strings.Repeat("x", 101): "invalid_param",
		"/v2/lists/search-tokens?q=x&policy=yolo":               "invalid_param",
		"/v2/lists/search-tokens?q=x&limit=abc":                 "invalid_param",
	} {
		if r := h.get(t, path); r.status != 400 || errCode(r) != code {
			t.Errorf("%s: %d %s", path, r.status, r.raw)
		}
	}
	if r := h.get(t, "/v2/lists/search-tokens?q=x&policy=yolo"); !strings.Contains(r.raw, `"policies":["strict","default","degen"]`) {
		t.Errorf("unknown policy does not list the policies: %s", r.raw)
	}
	for _, l := range []string{"500", "0", "-3"} {
		if r := h.get(t, "/v2/lists/search-tokens?q=USDC&policy=degen&limit="+l); r.status != 200 {
			t.Errorf("limit=%s is clamped, got %d", l, r.status)
		}
	}
}

func TestSearchTokensBudget(t *testing.T) {
	h, _ := searchHarness(t, &fakeMeta{})
	h.srv.d.ListsConfig.SearchBudget = 2
	for range 2 {
		if r := h.get(t, "/v2/lists/search-tokens?q=USDC"); r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
	}
	r := h.get(t, "/v2/lists/search-tokens?q=USDC")
	if r.status != 429 || errTag(r) != "RateLimitedError" || r.header.Get("Retry-After") == "" {
		t.Fatalf("over the search budget: %d %s", r.status, r.raw)
	}
}
