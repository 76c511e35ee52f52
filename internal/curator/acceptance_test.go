package curator

import (
	"context"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/realdata"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// referenceSnapshot is what a server holds after `assetd registry import
// reference-registry.json`: the seed with the reference registry over it.
// It returns the parsed reference document too.
func referenceSnapshot(tb testing.TB) (*registry.Snapshot, registry.Document) {
	tb.Helper()
	return realdata.ReferenceWithDocument(tb)
}

// wellKnown are the twenty symbols with their real mints and where
// each mint is checked: "reference" (a variant of reference-registry.json
// with that symbol), "registry" (a variant of the seed registry claiming
// the symbol, which jup-validated-tokens.csv lists with the same symbol)
// or "index" (the 150k index's token with that symbol and coingecko id;
// the registry lists neither TRUMP nor MEW).
var wellKnown = []struct{ symbol, mint, source, coingecko string }{
	{"USDC", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "reference", ""},
	{"USDT", "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", "reference", ""},
	{"JUP", "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN", "registry", ""},
	{"BONK", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", "registry", ""},
	{"WIF", "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm", "registry", ""},
	{"JTO", "jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL", "registry", ""},
	{"PYTH", "HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3", "registry", ""},
	{"RAY", "4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R", "registry", ""},
	{"ORCA", "orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE", "registry", ""},
	{"mSOL", "mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So", "reference", ""},
	{"jitoSOL", "J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn", "reference", ""},
	{"W", "85VBFQZC9TZkfaptBWjvUw7YbZjy52A6mjtPGjstQAmQ", "registry", ""},
	{"RENDER", "rndrizKT3MK1iimdxRdWabcF7Zg7AR5T4nud4EkHBof", "registry", ""},
	{"HNT", "hntyVP6YFm1Hg25TN9WGLqM12b8TQmcknKrdu1oxWux", "registry", ""},
	{"POPCAT", "7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr", "registry", ""},
	{"TRUMP", "6p6xgHyF7AeE6TZkSmFsko444wqoP15icUSqi2jfGiPN", "index", "official-trump"},
	{"MEW", "MEW1gQWJ3nEXg2qgERiKu7FAFj79PHvQVREQUzScPP5", "index", "cat-in-a-dogs-world"},
	{"KMNO", "KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS", "registry", ""},
	{"DRIFT", "DriFtupJYLTosbwoN8koMbEYSx54aFAVLddWsbksjwg7", "registry", ""},
	{"TNSR", "TNSRxcUxoT9xBG3de7PiJyTDYu7kskLqcpddxnEJAS6", "registry", ""},
}

// checkWellKnown verifies every mint of wellKnown against the data files
// it names.
func checkWellKnown(t *testing.T, snap *registry.Snapshot, ref registry.Document, x *tokenindex.Index) {
	t.Helper()
	recs, err := csv.NewReader(openData(t, "jup-validated-tokens.csv")).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	validated := map[string]string{} // mint -> symbol key
	for _, r := range recs[1:] {
		validated[r[2]] = tokenindex.Key(r[1])
	}
	for _, w := range wellKnown {
		key := tokenindex.Key(w.symbol)
		switch w.source {
		case "reference":
			ok := false
			for _, a := range ref.Assets {
				for _, v := range a.Variants {
					ok = ok || v.Mint == w.mint && tokenindex.Key(v.Symbol) == key
				}
			}
			if !ok {
				t.Errorf("%s: %s is not a variant of reference-registry.json with that symbol", w.symbol, w.mint)
			}
		case "registry":
			a, v, ok := snap.VariantByMint(w.mint)
			if !ok || !slices.ContainsFunc(ClaimedSymbols(a, v), func(s string) bool { return tokenindex.Key(s) == key }) {
				t.Errorf("%s: %s is not a registry variant claiming it", w.symbol, w.mint)
			}
			if validated[w.mint] != key {
				t.Errorf("%s: jup-validated-tokens.csv lists %s as %q", w.symbol, w.mint, validated[w.mint])
			}
		case "index":
			tk, ok := x.Get(w.mint)
			if !ok || tokenindex.Key(tk.Symbol) != key || tk.CoingeckoID != w.coingecko {
				t.Errorf("%s: index token %s = %+v", w.symbol, w.mint, tk)
			}
			if _, _, ok := snap.VariantByMint(w.mint); ok {
				t.Errorf("%s: %s is a registry variant after all", w.symbol, w.mint)
			}
		}
	}
}

// allRows is a limit above any candidate set: the acceptance inspects
// every judged candidate, not only the first page.
const allRows = 1 << 20

// demoMarkets serves the demo world's simulated snapshots and pools to
// the service, synchronously (the market cache would warm them in the
// background).
type demoMarkets struct{ w *demo.World }

func (d demoMarkets) Market(mint string) *asset.Market {
	toks, err := d.w.Snapshots(context.Background(), []string{mint})
	if err != nil {
		return nil
	}
	if t, ok := toks[mint]; ok {
		return &t.Market
	}
	return nil
}

func (demoMarkets) ExecutionQuality(string) *asset.ExecutionQuality { return nil }
func (demoMarkets) EnsureSnapshots(...string)                       {}

func (d demoMarkets) DEXMarkets(mint string) ([]market.DEXMarket, time.Time, bool) {
	pools, err := d.w.Markets(context.Background(), mint, 20)
	return pools, time.Time{}, err == nil && len(pools) > 0
}

// TestAcceptanceRealMints is the acceptance on real data: the
// 150k token index plus the reference registry, with no market provider
// (offline, or before the cache warms) and with the demo world's
// simulated market. The real mint leads for all twenty well-known symbols
// under every policy, and at least 95% of the index's copies of those of
// them the registry lists are flagged under degen (possible_impersonation
// or symbol_collision) and suppressed with gate_impersonation under
// default.
//
// TRUMP, which two coingecko-listed tokens claim and the registry does not
// list, is told by spelling: OFFICIAL TRUMP spells it plainly, Make Solana
// Great Again as "$TRUMP" (the demo's thin markets and random pool ages
// decide nothing).
func TestAcceptanceRealMints(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 150k token index")
	}
	x := loadTokenFile(t, dataDir+index150k)
	snap, ref := referenceSnapshot(t)
	checkWellKnown(t, snap, ref, x)
	clock := func() time.Time { return now }
	w := demo.New(demo.Config{Assets: snap.Assets(), Now: clock})
	for _, mode := range []struct {
		name string
		cfg  Config
	}{
		{"offline", Config{}},
		{"demo market", Config{Markets: demoMarkets{w}, Ages: demoMarkets{w}}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cfg := mode.cfg
			cfg.Registry, cfg.Index, cfg.Now = func() *registry.Snapshot { return snap }, func() *tokenindex.Index { return x }, clock
			acceptRealMints(t, snap, x, New(cfg))
		})
	}
}

func acceptRealMints(t *testing.T, snap *registry.Snapshot, x *tokenindex.Index, svc *Service) {
	ctx := context.Background()
	leads := map[string]int{}
	var copies, flagged, gated int
	for _, w := range wellKnown {
		for _, p := range PolicyNames {
			res := svc.Search(ctx, Request{Query: w.symbol, Policy: p, Limit: DefaultLimit})
			if len(res.Results) > 0 && res.Results[0].Mint == w.mint {
				leads[p]++
				continue
			}
			var got []string
			for _, r := range res.Results[:min(3, len(res.Results))] {
				got = append(got, fmt.Sprintf("%s %s %s %d", r.Mint, deref(r.Claims.Symbol), r.Claims.Verdict, r.Score.Total))
			}
			i := slices.IndexFunc(res.Suppressed, func(s Suppressed) bool { return s.Mint == w.mint })
			var by []string
			if i >= 0 {
				by = res.Suppressed[i].SuppressedBy
			}
			t.Errorf("%s under %s: leaders %v; real mint suppressed by %v", w.symbol, p, got, by)
		}
		if w.source == "index" {
			continue
		}
		degen := svc.Search(ctx, Request{Query: w.symbol, Policy: PolicyDegen, Limit: allRows})
		def := svc.Search(ctx, Request{Query: w.symbol, Policy: PolicyDefault, Limit: allRows})
		x.BySymbol(tokenindex.Key(w.symbol), false, func(id tokenindex.ID) bool {
			m := x.Mint(id)
			if _, _, ok := snap.VariantByMint(m); ok {
				return true
			}
			copies++
			if i := slices.IndexFunc(degen.Results, func(r Result) bool { return r.Mint == m }); i >= 0 &&
				(slices.Contains(degen.Results[i].Warnings, WarnImpersonation) || slices.Contains(degen.Results[i].Warnings, WarnCollision)) {
				flagged++
			}
			if i := slices.IndexFunc(def.Suppressed, func(s Suppressed) bool { return s.Mint == m }); i >= 0 &&
				slices.Contains(def.Suppressed[i].SuppressedBy, GateImpersonation) {
				gated++
			}
			return true
		})
	}
	t.Logf("real mint first: strict %d/20, default %d/20, degen %d/20; copies %d: flagged under degen %d (%.1f%%), gate_impersonation under default %d (%.1f%%)",
		leads[PolicyStrict], leads[PolicyDefault], leads[PolicyDegen], copies, flagged, pct(flagged, copies), gated, pct(gated, copies))
	if copies < 200 {
		t.Errorf("only %d copies of registry symbols in the index", copies)
	}
	if pct(flagged, copies) < 95 || pct(gated, copies) < 95 {
		t.Errorf("copies flagged %.1f%%, gated %.1f%%; want >= 95%% each", pct(flagged, copies), pct(gated, copies))
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// TestListedCopiesFlagged: the index tokens with a coingecko id that
// share a protected symbol (Dog wif hat and HAMSTER WIF HAT share the
// registry's WIF; Make Solana Great Again's $TRUMP shares OFFICIAL
// TRUMP's) are flagged symbol_collision, without market data, under
// every policy that shows them.
func TestListedCopiesFlagged(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 150k token index")
	}
	x := loadTokenFile(t, dataDir+index150k)
	snap, _ := referenceSnapshot(t)
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }})
	for _, tc := range []struct{ query, mint, name string }{
		{"WIF", "21AErpiB8uSb94oQKRcwuHqyHF93njAxBSbdUrpupump", "Dog wif hat"},
		{"WIF", "GLXkHLX4jiVRAYBVwx2UAvKRBu2YDCQudNiR3k9q9THH", "HAMSTER WIF HAT"},
		{"TRUMP", "A1gAnCfwfKpoqFoAAxDLuwxSGQZfNo1eSRi8TfyrbV28", "Make Solana Great Again"},
	} {
		if tk, ok := x.Get(tc.mint); !ok || tk.Name != tc.name || tk.CoingeckoID == "" {
			t.Fatalf("%s: index token %+v", tc.mint, tk)
		}
		for _, p := range PolicyNames {
			res := svc.Search(context.Background(), Request{Query: tc.query, Policy: p, Limit: allRows})
			i := slices.IndexFunc(res.Results, func(r Result) bool { return r.Mint == tc.mint })
			if i < 0 {
				t.Errorf("%s (%s) not shown under %s", tc.name, tc.mint, p)
				continue
			}
			r := res.Results[i]
			if r.Claims.Verdict == VerdictProtectedHolder || !slices.Contains(r.Warnings, WarnCollision) && !slices.Contains(r.Warnings, WarnImpersonation) {
				t.Errorf("%s under %s: verdict %s, warnings %v", tc.name, p, r.Claims.Verdict, r.Warnings)
			}
		}
	}
}
