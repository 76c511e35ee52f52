package curator

import (
	"context"
	"encoding/csv"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

const dataDir = "../../../shared/data/"

func openData(t testing.TB, name string) *os.File {
	t.Helper()
	f, err := os.Open(dataDir + name)
	if err != nil {
		t.Skip("shared data absent:", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func seedSnapshot(t testing.TB) *registry.Snapshot {
	t.Helper()
	doc, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := registry.Build(doc)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func tokenList(t *testing.T) *tokenindex.Index {
	t.Helper()
	openData(t, "solana-labs-tokenlist.json") // skips when absent
	x, _, err := tokenindex.LoadFile(dataDir + "solana-labs-tokenlist.json")
	if err != nil {
		t.Fatal(err)
	}
	return x
}

type advMap map[string]*asset.Advisory

func (a advMap) Get(m string) *asset.Advisory { return a[m] }

// TestBannedTokensSuppressed: every mint of jup-banned-tokens.csv set as
// a blocked advisory lands in suppressed[] with exactly
// gate_advisory_blocked under every policy, searched by mint and, for
// those the token list names, by symbol.
func TestBannedTokensSuppressed(t *testing.T) {
	recs, err := csv.NewReader(openData(t, "jup-banned-tokens.csv")).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	adv := advMap{}
	for _, r := range recs[1:] {
		adv[r[0]] = &asset.Advisory{Status: asset.AdvisoryBlocked, Reason: r[1]}
	}
	if len(recs)-1 != 61 || len(adv) < 50 {
		t.Fatalf("%d rows, %d distinct banned mints; want 61 rows", len(recs)-1, len(adv))
	}
	snap, x := seedSnapshot(t), tokenList(t)
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }, Advisories: adv})
	bySymbol := 0
	for mint := range adv {
		queries := []string{mint}
		if tk, ok := x.Get(mint); ok && tk.Symbol != "" {
			queries = append(queries, tk.Symbol)
			bySymbol++
		}
		for _, q := range queries {
			for _, p := range PolicyNames {
				res := svc.Search(context.Background(), Request{Query: q, Policy: p, Limit: MaxLimit})
				i := slices.IndexFunc(res.Suppressed, func(s Suppressed) bool { return s.Mint == mint })
				if i < 0 || !slices.Equal(res.Suppressed[i].SuppressedBy, []string{GateAdvisoryBlocked}) {
					t.Errorf("%s (query %q, %s): not suppressed by gate_advisory_blocked", mint, q, p)
				}
				if slices.ContainsFunc(res.Results, func(r Result) bool { return r.Mint == mint }) {
					t.Errorf("%s shown for %q under %s", mint, q, p)
				}
			}
		}
	}
	if bySymbol < 6 {
		t.Errorf("only %d banned mints have a token-list symbol, want >= 6", bySymbol)
	}
}

// TestS0LCollidesWithSOL: the digit spoof S0L (banned as "fake SOL") is
// judged an impersonator of SOL, which wrapped SOL protects.
func TestS0LCollidesWithSOL(t *testing.T) {
	snap, x := seedSnapshot(t), tokenList(t)
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }})
	if by, ok := svc.Protected().Protects("S0L"); !ok || !strings.HasPrefix(by, "registry:") {
		t.Fatalf("S0L is not protected by the registry: %q %v", by, ok)
	}
	res := svc.Search(context.Background(), Request{Query: "S0L", Policy: PolicyDegen, Limit: MaxLimit})
	found := 0
	for _, r := range res.Results {
		if r.Claims.Symbol != nil && *r.Claims.Symbol == "S0L" {
			found++
			if r.Claims.Verdict != VerdictImpersonation || !slices.Contains(r.Warnings, WarnImpersonation) {
				t.Errorf("S0L %s judged %s %v", r.Mint, r.Claims.Verdict, r.Warnings)
			}
		}
	}
	if found == 0 {
		t.Fatalf("no S0L token found: %+v", res.Results)
	}
	res = svc.Search(context.Background(), Request{Query: "S0L", Policy: PolicyDefault, Limit: MaxLimit})
	for _, r := range res.Results {
		if r.Claims.Symbol != nil && *r.Claims.Symbol == "S0L" {
			t.Errorf("default policy shows the S0L spoof %s", r.Mint)
		}
	}
}

// TestValidatedCollisions: Jupiter-validated tokens that share a
// registry-protected symbol are collisions, not impersonations, once
// their liquidity and age are real; without market data the rule cannot
// tell and calls them impersonation (the reference's behaviour).
func TestValidatedCollisions(t *testing.T) {
	recs, err := csv.NewReader(openData(t, "jup-validated-tokens.csv")).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	snap := seedSnapshot(t)
	prot := BuildProtected(snap, nil, nil)
	var colliders []Candidate
	for _, r := range recs[1:] {
		name, sym, mint := r[0], r[1], r[2]
		if _, _, ok := snap.VariantByMint(mint); ok {
			continue
		}
		if _, ok := prot.Protects(sym); ok {
			colliders = append(colliders, Candidate{Mint: mint, Symbol: sym, Name: name})
		}
	}
	if len(colliders) < 4 {
		t.Fatalf("%d validated tokens collide with registry symbols, want >= 4", len(colliders))
	}
	for _, c := range colliders {
		bare := Judge(Interpret(c.Symbol), []Candidate{c}, Policies[PolicyDegen], prot, MaxLimit, now)
		if bare.Results[0].Claims.Verdict != VerdictImpersonation {
			t.Errorf("%s %s without market data: %s", c.Symbol, c.Mint, bare.Results[0].Claims.Verdict)
		}
		c.Market, c.AgeDays = mkt(2_000_000, 300_000), days(900)
		o := Judge(Interpret(c.Symbol), []Candidate{c}, Policies[PolicyStrict], prot, MaxLimit, now)
		if len(o.Results) != 1 || o.Results[0].Claims.Verdict != VerdictCollision || !slices.Contains(o.Results[0].Warnings, WarnCollision) {
			t.Errorf("%s %s with real liquidity and age: %+v", c.Symbol, c.Mint, o)
		}
	}
}

// TestAllowListFile: the jup-ag duplicate-symbols export parses as an
// allow-list, and an allowed mint is never judged a claimant.
func TestAllowListFile(t *testing.T) {
	allow, skipped, err := ParseAllowList(openData(t, "jup-allowed-duplicate-symbols.json"))
	if err != nil || skipped > 5 {
		t.Fatal(err, skipped)
	}
	if len(allow) < 600 {
		t.Fatalf("%d allowed mints, want >= 600", len(allow))
	}
	var mint string
	for m := range allow {
		mint = m
		break
	}
	p := protectedUSDC()
	p.allow = allow
	o := Judge(Interpret("USDC"), []Candidate{{Mint: mint, Symbol: "USDC", Name: "x"}}, Policies[PolicyDegen], p, MaxLimit, now)
	if o.Results[0].Claims.Verdict != VerdictNone {
		t.Fatalf("allowed mint judged %s", o.Results[0].Claims.Verdict)
	}
}
