package curator

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// chainSyms is a test ChainSymbols: mint → on-chain symbol.
type chainSyms map[string]string

func (c chainSyms) ChainSymbol(m string) (string, string) { return c[m], "" }

func (c chainSyms) Claiming(key string, limit int) []string {
	var out []string
	for m, s := range c {
		if tokenindex.Normalize(s).Key == key && len(out) < limit {
			out = append(out, m)
		}
	}
	return out
}

// TestChainSymbolChangeFeedsJudgment: an unlisted mint whose on-chain
// symbol changed into a protected symbol (USDC) is gathered by a search
// for that symbol and judged on it (collision or impersonation, protected
// by the registry's USDC), though the token index still has its old
// symbol; without the on-chain symbol it is no candidate. The mint is a
// synthetic test address.
func TestChainSymbolChangeFeedsJudgment(t *testing.T) {
	snap := seedSnapshot(t)
	const renamed = "Syn1hetic1111111111111111111111111111111111"
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: renamed, Symbol: "OLDSYM", Name: "Synthetic test token"})
	x := b.Build()
	find := func(res Response) (verdict string, found bool) {
		for _, r := range res.Results {
			if r.Mint == renamed {
				return r.Claims.Verdict, true
			}
		}
		for _, s := range res.Suppressed {
			if s.Mint == renamed {
				return "suppressed", true
			}
		}
		return "", false
	}
	cfg := Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }}
	if _, found := find(New(cfg).Search(context.Background(), Request{Query: "USDC", Limit: 20})); found {
		t.Fatal("without an on-chain symbol the renamed mint is a USDC candidate")
	}
	cfg.ChainSymbols = chainSyms{renamed: "USDC"}
	svc := New(cfg)
	res := svc.Search(context.Background(), Request{Query: "USDC", Limit: 20})
	v, found := find(res)
	if !found {
		t.Fatalf("renamed mint not gathered: %+v", res)
	}
	if v != "suppressed" && v != VerdictImpersonation && v != VerdictCollision {
		t.Errorf("renamed mint judged %q, want a collision or impersonation", v)
	}
	// The judgment itself: the candidate's claimed symbol is the chain's.
	d := svc.current()
	g := &gather{d: d, byMnt: map[string]*Candidate{}, ids: map[string]tokenindex.ID{}}
	c := g.add(renamed, "OLDSYM", "")
	svc.enrich(g, c)
	if c.Symbol != "USDC" {
		t.Fatalf("claimed symbol %q", c.Symbol)
	}
	out := claimVerdicts([]Candidate{*c}, claimKeys([]Candidate{*c}), d.prot)
	if k := out[0].kind; k != VerdictImpersonation && k != VerdictCollision {
		t.Errorf("verdict %+v", out[0])
	}
	// A listed mint keeps the registry's claim whatever the chain says.
	const usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	svc.c.ChainSymbols = chainSyms{usdc: "SCAM"}
	c2 := g.add(usdc, "", "")
	svc.enrich(g, c2)
	if c2.Symbol != "USDC" {
		t.Errorf("listed USDC claims %q", c2.Symbol)
	}
}
