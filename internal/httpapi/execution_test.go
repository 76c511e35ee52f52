package httpapi

import (
	"context"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/contracttest"
	"github.com/assetd/assetd/internal/execution"
	"github.com/google/go-cmp/cmp"
)

// Seed bitcoin variants (real mints; decimals 8).
const (
	exCBBTC = "cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij"
	exWBTC  = "3NZ9JMVBmGAqocybic2c7LQCJScmgsAZ6vQqTDzcqmJh"
	exZBTC  = "zBTCug3er3tLyffELcvDNrKkCymbPWysGcWihESYfLg"
)

// fakeAdvisories is an advisory index tests flip.
type fakeAdvisories struct {
	mu     sync.Mutex
	m      map[string]*asset.Advisory
	loaded bool
}

func (f *fakeAdvisories) Get(mint string) *asset.Advisory {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[mint]
}

func (f *fakeAdvisories) Loaded() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.loaded }

func (f *fakeAdvisories) set(mint, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := "https://example.com/advisory/" + mint[:4]
	f.m[mint] = &asset.Advisory{Status: status, Reason: "test " + status, URL: &u, Since: 1}
}

func (f *fakeAdvisories) reset() {
	f.mu.Lock()
	f.m, f.loaded = map[string]*asset.Advisory{}, true
	f.mu.Unlock()
}

// depthProvider quotes USDC→token as a constant-product pool of depth
// dollars at rawPerUSDC raw token units per dollar (token→USDC likewise
// inverted), with a hook to make it hang.
type depthProvider struct {
	id         string
	rawPerUSDC int64   // raw token units per whole dollar
	depthUSD   float64 // pool depth in dollars
	hang       bool
}

func (p *depthProvider) ID() string { return p.id }

func (p *depthProvider) Quote(ctx context.Context, req execution.QuoteRequest) (execution.Quote, error) {
	if p.hang {
		<-ctx.Done()
		return execution.Quote{}, ctx.Err()
	}
	in := new(big.Rat).SetInt(req.Amount)
	depth := new(big.Rat).SetFloat64(p.depthUSD * 1e6)
	var out *big.Rat
	if req.InputMint == execution.USDCMint {
		// out = in/1e6·rate · D/(D+in)
		out = new(big.Rat).Mul(in, big.NewRat(p.rawPerUSDC, 1_000_000))
		out.Mul(out, new(big.Rat).Quo(depth, new(big.Rat).Add(depth, in)))
	} else {
		usd := new(big.Rat).Mul(in, big.NewRat(1_000_000, p.rawPerUSDC))
		out = usd.Mul(usd, new(big.Rat).Quo(depth, new(big.Rat).Add(depth, usd)))
	}
	o := new(big.Int).Quo(out.Num(), out.Denom())
	return execution.Quote{InAmount: req.Amount, OutAmount: o, Route: []execution.Hop{{AmmKey: "fake-" + p.id, Label: "Fake", Percent: 100}}}, nil
}

type execHarness struct {
	*harness
	adv   *fakeAdvisories
	slow  *depthProvider
	exec  map[string]string // key name -> plaintext
	quote *execution.QuoteBudget
}

func newExecHarness(t testing.TB) *execHarness {
	t.Helper()
	cat := newSeedCatalog(t, false)
	snap, _ := seedSnapshot()
	h := newAssetHarness(t, cat)
	e := &execHarness{harness: h, adv: &fakeAdvisories{}, exec: map[string]string{}}
	e.adv.reset()
	var keys []apikey.Key
	for name, scopes := range map[string][]string{
		"exec":     {apikey.ScopeAssetsRead, apikey.ScopeExecutionRead},
		"assets":   {apikey.ScopeAssetsRead},
		"execonly": {apikey.ScopeExecutionRead},
		"noexec":   {apikey.ScopeProfileRead},
		"default":  nil, // filled below from ParseScopes("")
	} {
		if scopes == nil {
			scopes, _ = apikey.ParseScopes("")
		}
		p, k := mkKey(t, "key_"+name, scopes...)
		e.exec[name] = p
		keys = append(keys, k)
	}
	h.keys.set(t, keys...)
	e.slow = &depthProvider{id: "beta", rawPerUSDC: 1005, depthUSD: 2_000_000}
	providers := []execution.Provider{
		&depthProvider{id: "alpha", rawPerUSDC: 1000, depthUSD: 20_000_000},
		e.slow,
	}
	e.quote = execution.NewQuoteBudget(10_000, time.Hour)
	h.srv.d.Execution = &execution.Service{Registry: cat.Snapshot, Markets: seedMarkets(snap, false), Advisories: e.adv,
		Providers: providers, QuoteBudget: 2 * time.Second, Now: func() time.Time { return fxNow }}
	h.srv.d.QuoteBudget = e.quote
	h.srv.d.Log = slog.New(slog.DiscardHandler)
	h.h = h.srv.build(nil)
	return e
}

func (e *execHarness) get(t *testing.T, key, path string) resp {
	t.Helper()
	return e.do(t, "GET", path, map[string]string{"X-Api-Key": e.exec[key]}, nil)
}

// wantAdvisory checks a 403 AssetAdvisoryError and its exact details.
func wantAdvisory(t *testing.T, r resp, mint, status string) {
	t.Helper()
	wantErr(t, r, 403, "AssetAdvisoryError", "advisory_"+status)
	want := map[string]any{"code": "advisory_" + status, "mint": mint, "status": status, "reason": "test " + status,
		"url": "https://example.com/advisory/" + mint[:4]}
	if diff := cmp.Diff(want, errDetails(r)); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
	if msg := r.body["error"].(map[string]any)["message"]; msg != "This mint has been flagged as "+status+" and cannot be traded" {
		t.Errorf("message %q", msg)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("refusal Cache-Control %q", cc)
	}
}

// badQuery is a refused query: its status and details.code ("" = none).
type badQuery struct {
	q      string
	status int
	code   string
}

// checkBad runs each query on prefix and checks its refusal, with the tag
// the status implies here (400 BadRequestError, 404 NotFoundError).
func (e *execHarness) checkBad(t *testing.T, prefix string, cases []badQuery) {
	t.Helper()
	for _, c := range cases {
		tag := "BadRequestError"
		if c.status == 404 {
			tag = "NotFoundError"
		}
		wantErr(t, e.get(t, "exec", prefix+c.q), c.status, tag, c.code)
	}
}

// checkMintGate: on path (which names mint), a caution advisory passes,
// compromised and blocked refuse with the exact details, and an advisory
// index that has not loaded fails closed with a 503.
func (e *execHarness) checkMintGate(t *testing.T, path, mint, cache string) {
	t.Helper()
	defer e.adv.reset()
	e.adv.set(mint, asset.AdvisoryCaution)
	wantOK(t, e.get(t, "exec", path), cache)
	for _, st := range []string{asset.AdvisoryCompromised, asset.AdvisoryBlocked} {
		e.adv.set(mint, st)
		wantAdvisory(t, e.get(t, "exec", path), mint, st)
	}
	e.adv.reset()
	e.adv.loaded = false
	wantErr(t, e.get(t, "exec", path), 503, "InternalServerError", "advisories_unavailable")
}

// TestExecutionScopeAndAuth: the spec says "scope `assets:read` unless
// stated" and the execution paths state none, so the family admits
// assets:read; execution:read (the finer grant) is admitted too. Any other
// scope alone is 403, no key 401.
func TestExecutionScopeAndAuth(t *testing.T) {
	e := newExecHarness(t)
	keys := []struct {
		key  string
		want int
	}{
		{"exec", 200},     // assets:read + execution:read
		{"assets", 200},   // assets:read alone
		{"execonly", 200}, // execution:read alone
		{"default", 200},  // keys create without --scopes
		{"noexec", 403},   // assets:profile:read alone
	}
	for _, p := range []string{"/v2/execution/links?mint=" + exCBBTC, "/v2/execution/evaluate?mint=" + exCBBTC, "/v2/execution/route?assetId=bitcoin"} {
		for _, k := range keys {
			r := e.get(t, k.key, p)
			if k.want == 403 {
				wantErr(t, r, 403, "ForbiddenError", "insufficient_scope")
			} else if r.status != k.want {
				t.Errorf("%s with key %q: %d %s; want %d", p, k.key, r.status, r.raw, k.want)
			}
		}
		if r := e.do(t, "GET", p, nil, nil); r.status != 401 {
			t.Errorf("%s without key: %d", p, r.status)
		}
	}
}

func TestExecutionLinks(t *testing.T) {
	e := newExecHarness(t)
	e.checkBad(t, "/v2/execution/links?", []badQuery{
		{"mint=" + exCBBTC + "&assetId=bitcoin", 400, "invalid_param"},
		{"", 400, "missing_param"},
		{"mint=nope", 400, "invalid_mint"},
		{"mint=" + exCBBTC + "&sellMint=nope", 400, "invalid_mint"},
		{"mint=" + exCBBTC + "&venues=orca,nope", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&venues=", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&kinds=bridge", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amount=abc", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amount=0", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amount=-1", 400, "invalid_param"},
		{"assetId=no-such-asset", 404, ""},
	})
	r := e.get(t, "exec", "/v2/execution/links?venues=nope&mint="+exCBBTC)
	if msg := r.body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "Valid: titan, jupiter, dflow, sunrise, omfg, kamino, orca, raydium, byreal") {
		t.Errorf("unknown venue message %q", msg)
	}

	var ok execution.LinksResponse
	r = e.get(t, "exec", "/v2/execution/links?mint="+exCBBTC+"&amount=1.5")
	wantOK(t, r, "private, max-age=3600")
	ok = execution.LinksResponse{}
	decodeStrict(t, r, &ok)
	if ok.BuyMint != exCBBTC || *ok.SellMint != execution.SOLMint || ok.Asset.AssetID != "bitcoin" || *ok.Primary != "titan" || len(ok.Links) != 9 {
		t.Fatalf("links = %+v", ok)
	}
	if ok.Links[1].URL != "https://jup.ag/swap?sell=So11111111111111111111111111111111111111112&buy="+exCBBTC {
		t.Errorf("jupiter url %s", ok.Links[1].URL)
	}
	r = e.get(t, "exec", "/v2/execution/links?mint="+execution.SOLMint+"&venues=raydium,orca,raydium")
	ok = execution.LinksResponse{}
	decodeStrict(t, r, &ok)
	if *ok.SellMint != execution.USDCMint || len(ok.Links) != 2 || ok.Links[0].ID != "orca" || ok.Primary != nil {
		t.Errorf("SOL links = %+v", ok)
	}

	e.checkMintGate(t, "/v2/execution/links?mint="+exCBBTC, exCBBTC, "private, max-age=3600")
	// assetId: the primary is chosen among unrestricted variants.
	e.adv.reset()
	r = e.get(t, "exec", "/v2/execution/links?assetId=bitcoin")
	ok = execution.LinksResponse{}
	decodeStrict(t, r, &ok)
	first := ok.BuyMint
	e.adv.set(first, asset.AdvisoryCompromised)
	r = e.get(t, "exec", "/v2/execution/links?assetId=bitcoin")
	ok = execution.LinksResponse{}
	decodeStrict(t, r, &ok)
	if ok.BuyMint == first || ok.Asset.AssetID != "bitcoin" {
		t.Errorf("restricted primary %s still chosen: %+v", first, ok)
	}
	snap, _ := seedSnapshot()
	btc, _ := snap.Asset("bitcoin")
	for _, v := range btc.Variants {
		e.adv.set(v.Mint, asset.AdvisoryBlocked)
	}
	r = e.get(t, "exec", "/v2/execution/links?assetId=bitcoin")
	wantErr(t, r, 403, "AssetAdvisoryError", "advisory_blocked")

}

func TestExecutionEvaluate(t *testing.T) {
	e := newExecHarness(t)
	nine := make([]string, 10)
	for i := range nine {
		nine[i] = "amountUsd=" + strconv.Itoa(i+1)
	}
	bad := []badQuery{
		{"", 400, "missing_param"},
		{"mint=nope", 400, "invalid_mint"},
		{"mint=" + exCBBTC + "&side=hold", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&side=sell&amountUsd=10", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&tokenAmount=1", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&side=sell", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amountUsd=0", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amountUsd=50000001", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amountUsd=1.1234567", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&amountUsd=1e3", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&side=sell&tokenAmount=0.123456789", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&" + strings.Join(nine, "&"), 400, "invalid_param"},
		{"mint=" + exCBBTC + "&providers=alpha,gamma", 400, "invalid_param"},
		{"mint=" + exCBBTC + "&providers=", 400, "invalid_param"},
		{"mint=So11111111111111111111111111111111111111111", 404, ""},
	}
	e.checkBad(t, "/v2/execution/evaluate?", bad)

	var ev execution.EvaluateResponse
	r := e.get(t, "exec", "/v2/execution/evaluate?mint="+exCBBTC)
	wantOK(t, r, "no-store")
	ev = execution.EvaluateResponse{}
	decodeStrict(t, r, &ev)
	for _, q := range ev.Quotes {
		if q.Best == nil {
			t.Fatalf("row unavailable: %s", r.raw)
		}
	}
	if len(ev.Quotes) != 3 || ev.Meta.AmountSource != "default" || ev.Meta.UpstreamQuotes != 6 || ev.Meta.TieBreak != "alpha" || ev.Token.Decimals != 8 {
		t.Fatalf("evaluate = %+v", ev.Meta)
	}
	// The answer carries the mint's verdict (no facts read here).
	if ev.Verdict == nil || ev.Verdict.Mint != exCBBTC || ev.Verdict.Status != "not_read_yet" || ev.Verdict.DoNotTrade {
		t.Errorf("evaluate verdict = %+v", ev.Verdict)
	}
	// beta is richer but shallow: it wins $10k, alpha wins $1M.
	if ev.Quotes[0].Best.Provider != "beta" || ev.Quotes[2].Best.Provider != "alpha" || ev.Quotes[0].Edge == nil || ev.Quotes[0].Edge.RunnerUp != "alpha" {
		t.Errorf("winners: %s %s", ev.Quotes[0].Best.Provider, ev.Quotes[2].Best.Provider)
	}
	r = e.get(t, "exec", "/v2/execution/evaluate?mint="+exCBBTC+"&amountUsd=100&amountUsd=100.000000&amountUsd=250.5&providers=alpha")
	ev = execution.EvaluateResponse{}
	decodeStrict(t, r, &ev)
	if len(ev.Quotes) != 2 || ev.Meta.Deduped != 1 || ev.Meta.AmountSource != "request" || !slices.Equal(ev.Providers, []string{"alpha"}) ||
		ev.Quotes[1].Request.Amount != "250.5" || ev.Quotes[1].Edge != nil || ev.Meta.Summary.BestProviderReason != execution.ReasonOnlyProvider {
		t.Errorf("evaluate = %+v %+v", ev.Quotes, ev.Meta)
	}
	r = e.get(t, "exec", "/v2/execution/evaluate?mint="+exCBBTC+"&side=sell&tokenAmount=1.5")
	ev = execution.EvaluateResponse{}
	decodeStrict(t, r, &ev)
	if ev.Side != "sell" || ev.Quotes[0].Best.Output.Mint != execution.USDCMint || ev.Quotes[0].Request.RawAmount != "150000000" {
		t.Errorf("sell = %+v", ev.Quotes[0])
	}

	e.checkMintGate(t, "/v2/execution/evaluate?mint="+exCBBTC, exCBBTC, "no-store")
}

// TestExecutionEvaluateHangingProvider: a provider that never answers
// turns into timeout rows; the request still answers 200 with the other
// provider's quotes.
func TestExecutionEvaluateHangingProvider(t *testing.T) {
	e := newExecHarness(t)
	e.srv.d.Execution.QuoteBudget = 100 * time.Millisecond
	e.slow.hang = true
	var ev execution.EvaluateResponse
	r := e.get(t, "exec", "/v2/execution/evaluate?mint="+exCBBTC)
	wantOK(t, r, "no-store")
	ev = execution.EvaluateResponse{}
	decodeStrict(t, r, &ev)
	for _, q := range ev.Quotes {
		if q.ProviderQuotes[1].Status != "unavailable" || *q.ProviderQuotes[1].Reason != execution.ReasonTimeout {
			t.Errorf("hanging provider row: %+v", q.ProviderQuotes[1])
		}
	}
}

func TestExecutionQuoteBudget(t *testing.T) {
	e := newExecHarness(t)
	e.srv.d.QuoteBudget = execution.NewQuoteBudget(6, time.Hour)
	wantOK(t, e.get(t, "exec", "/v2/execution/evaluate?mint="+exCBBTC), "no-store") // 3 sizes × 2 providers
	r := e.get(t, "exec", "/v2/execution/evaluate?mint="+exCBBTC+"&amountUsd=5")
	wantErr(t, r, 429, "RateLimitedError", "quote_budget")
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	// Validation errors cost nothing.
	wantErr(t, e.get(t, "exec", "/v2/execution/evaluate?mint=nope"), 400, "BadRequestError", "invalid_mint")
}

func TestExecutionRoute(t *testing.T) {
	e := newExecHarness(t)
	bad := []badQuery{
		{"", 400, "missing_param"},
		{"assetId=bitcoin&side=sell", 400, "invalid_param"},
		{"assetId=bitcoin&side=hold", 400, "invalid_param"},
		{"assetId=bitcoin&amountUsd=0", 400, "invalid_param"},
		{"assetId=bitcoin&amountUsd=50000001", 400, "invalid_param"},
		{"assetId=bitcoin&amountUsd=10.5", 400, "invalid_param"},
		{"assetId=bitcoin&amountUsd=+5", 400, "invalid_param"},
		{"assetId=bitcoin&maxVariants=0", 400, "invalid_param"},
		{"assetId=bitcoin&maxVariants=7", 400, "invalid_param"},
		{"assetId=bitcoin&allocate=yes", 400, "invalid_param"},
		{"assetId=bitcoin&providers=nope", 400, "invalid_param"},
		{"assetId=no-such-asset", 404, ""},
	}
	e.checkBad(t, "/v2/execution/route?", bad)
	if msg := e.get(t, "exec", "/v2/execution/route?assetId=bitcoin&side=sell").body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "/v2/execution/evaluate") {
		t.Errorf("sell message %q", msg)
	}

	var rt execution.RouteResponse
	r := e.get(t, "exec", "/v2/execution/route?assetId=bitcoin&amountUsd=1000000")
	wantOK(t, r, "no-store")
	rt = execution.RouteResponse{}
	decodeStrict(t, r, &rt)
	checkRoute(t, rt, 1_000_000)

	r = e.get(t, "exec", "/v2/execution/route?assetId=bitcoin&allocate=false&maxVariants=1")
	rt = execution.RouteResponse{}
	decodeStrict(t, r, &rt)
	if rt.AllocationStatus != execution.AllocNotRequested || rt.Allocation != nil || len(rt.Variants) != 1 {
		t.Errorf("allocate=false: %s %d variants", rt.AllocationStatus, len(rt.Variants))
	}
	if !slices.ContainsFunc(rt.Excluded, func(x execution.Excluded) bool { return x.Reason == execution.ExcludeBeyondMaxVariant }) {
		t.Errorf("excluded %+v", rt.Excluded)
	}

	// A compromised variant is listed in excluded[] while others route.
	e.adv.set(exCBBTC, asset.AdvisoryCompromised)
	e.adv.set(exWBTC, asset.AdvisoryBlocked)
	e.adv.set(exZBTC, asset.AdvisoryCaution)
	r = e.get(t, "exec", "/v2/execution/route?assetId=bitcoin")
	wantOK(t, r, "no-store")
	rt = execution.RouteResponse{}
	decodeStrict(t, r, &rt)
	reasons := map[string]string{}
	for _, x := range rt.Excluded {
		reasons[x.Mint] = x.Reason
	}
	if reasons[exCBBTC] != "advisory_compromised" || reasons[exWBTC] != "advisory_blocked" || reasons[exZBTC] == "advisory_caution" {
		t.Errorf("excluded = %+v", rt.Excluded)
	}
	if diff := cmp.Diff(rt.Excluded, rt.Meta.ExcludedVariants); diff != "" {
		t.Errorf("excluded[] and meta.excludedVariants differ: %s", diff)
	}
	for _, v := range rt.Variants {
		if v.Mint == exCBBTC || v.Mint == exWBTC {
			t.Errorf("restricted variant %s was probed", v.Mint)
		}
	}
	// Every variant restricted: 403.
	snap, _ := seedSnapshot()
	btc, _ := snap.Asset("bitcoin")
	for _, v := range btc.Variants {
		e.adv.set(v.Mint, asset.AdvisoryCompromised)
	}
	wantErr(t, e.get(t, "exec", "/v2/execution/route?assetId=bitcoin"), 403, "AssetAdvisoryError", "advisory_compromised")
	e.adv.reset()
	e.adv.loaded = false
	wantErr(t, e.get(t, "exec", "/v2/execution/route?assetId=bitcoin"), 503, "InternalServerError", "advisories_unavailable")
}

// checkRoute asserts an allocation is valid: legs sum to the target (less
// the unallocated remainder), each leg belongs to a probed, eligible
// variant and stays within its proven depth, shares sum to ~1.
func checkRoute(t *testing.T, rt execution.RouteResponse, target int64) {
	t.Helper()
	if rt.AllocationStatus != execution.AllocOK || rt.Allocation == nil {
		t.Fatalf("allocationStatus %s, warnings %v", rt.AllocationStatus, rt.Meta.Warnings)
	}
	a := rt.Allocation
	if a.Version != "allocation-v1" || rt.Meta.RoutingVersion != "variant-route-v1" || len(a.Legs) == 0 {
		t.Fatalf("allocation %+v", a)
	}
	byMint := map[string]*execution.RouteVariant{}
	for _, v := range rt.Variants {
		byMint[v.Mint] = v
	}
	var sum int64
	for _, l := range a.Legs {
		n, err := strconv.ParseInt(l.AmountUSD, 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("leg amount %q", l.AmountUSD)
		}
		sum += n
		v := byMint[l.Mint]
		if v == nil || !v.AllocationEligible || v.Curve.MaxProvenSizeUSD == nil || n > *v.Curve.MaxProvenSizeUSD {
			t.Errorf("leg %+v on variant %+v", l, v)
		}
		if l.ExpectedOut.RawAmount == "" || l.ExpectedOut.RawAmount == "0" {
			t.Errorf("leg out %+v", l.ExpectedOut)
		}
	}
	un, _ := strconv.ParseInt(a.UnallocatedUSD, 10, 64)
	if sum+un != target || a.TargetUSD != strconv.FormatInt(target, 10) {
		t.Errorf("legs %d + unallocated %d != target %d", sum, un, target)
	}
	if g := a.BlendedImpactGrade; !slices.Contains([]string{"excellent", "good", "fair", "poor", "avoid"}, g) {
		t.Errorf("grade %q", g)
	}
	if rt.Meta.UpstreamQuotes <= 0 || len(rt.Meta.ProbeLadderUSD) == 0 {
		t.Errorf("meta %+v", rt.Meta)
	}
}

// FuzzExecutionQuery: any query string on the three endpoints answers 200
// or a 4xx envelope, never a 5xx.
func FuzzExecutionQuery(f *testing.F) {
	for _, q := range []string{"mint=" + exCBBTC, "assetId=bitcoin", "mint=" + exCBBTC + "&amountUsd=1.5&amountUsd=1.50",
		"mint=" + exCBBTC + "&side=sell&tokenAmount=0.00000001", "assetId=btc&amountUsd=1&maxVariants=6&allocate=false",
		"venues=,,orca&kinds=swap&mint=" + exCBBTC, "amount=1.&mint=x", "%zz", "providers=alpha,,beta&mint=" + exCBBTC} {
		for ep := range 3 {
			f.Add(uint8(ep), q)
		}
	}
	e := newExecHarness(f)
	e.srv.d.Execution.QuoteBudget = time.Second
	paths := []string{"/v2/execution/links?", "/v2/execution/evaluate?", "/v2/execution/route?"}
	f.Fuzz(func(t *testing.T, ep uint8, q string) {
		target := paths[int(ep)%3] + q
		if _, err := url.ParseRequestURI(target); err != nil || strings.ContainsAny(q, " #") {
			return // not a request line
		}
		req := httptest.NewRequest("GET", target, nil)
		req.Header.Set("X-Api-Key", e.exec["exec"])
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		contracttest.Check(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
		if rec.Code != 200 && (rec.Code < 400 || rec.Code >= 500) {
			t.Fatalf("status %d for %q: %s", rec.Code, q, rec.Body)
		}
	})
}
