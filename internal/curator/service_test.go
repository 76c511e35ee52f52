package curator

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// fakeProvider answers one token for any query; fail makes it error.
type fakeProvider struct {
	calls atomic.Int64
	fail  atomic.Bool
}

const provMint = "Prov111111111111111111111111111111111111111"

func (f *fakeProvider) Search(ctx context.Context, q string, limit int) ([]market.TokenMeta, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return nil, errors.New("upstream down")
	}
	return []market.TokenMeta{{Mint: provMint, Symbol: "PROV\x00", Name: "Provider token"}, {Mint: "not a mint", Symbol: "X"}}, nil
}

// markets is a fixed market reader that records warming requests.
type markets struct {
	m      map[string]*asset.Market
	warmed atomic.Int64
}

func (m *markets) Market(mint string) *asset.Market                { return m.m[mint] }
func (m *markets) ExecutionQuality(string) *asset.ExecutionQuality { return nil }
func (m *markets) EnsureSnapshots(mints ...string)                 { m.warmed.Add(int64(len(mints))) }

func TestServiceProviderIsNeverAwaited(t *testing.T) {
	p := &fakeProvider{}
	mk := &markets{m: map[string]*asset.Market{}}
	var snap *registry.Snapshot
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Provider: p, Markets: mk, Now: func() time.Time { return now }})
	has := func(r Response) bool {
		for _, x := range r.Results {
			if x.Mint == provMint {
				return true
			}
		}
		return false
	}
	r := svc.Search(context.Background(), Request{Query: "PROV", Policy: PolicyDegen})
	if r.Sources.Provider != "degraded" || has(r) || r.Sources.DB != "degraded" {
		t.Fatalf("first search: %+v", r.Sources)
	}
	poll.For(t, 10*time.Second, "provider answer cached", func() bool {
		return svc.Search(context.Background(), Request{Query: "PROV", Policy: PolicyDegen}).Sources.Provider == "ok"
	})
	r = svc.Search(context.Background(), Request{Query: "prov", Policy: PolicyDegen}) // same normalised query
	if !has(r) || *r.Results[0].Claims.Symbol != "PROV" {
		t.Fatalf("cached provider answer not used or not cleaned: %+v", r.Results)
	}
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("provider called %d times for one query, want 1", n)
	}
	if mk.warmed.Load() == 0 {
		t.Error("candidates without market data were not scheduled for warming")
	}
}

func TestServiceSources(t *testing.T) {
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: provMint, Symbol: "IDX", Name: "Index token"})
	x := b.Build()
	svc := New(Config{Registry: func() *registry.Snapshot { return nil }, Index: func() *tokenindex.Index { return x }})
	r := svc.Search(context.Background(), Request{Query: "IDX", Policy: "nonsense"})
	if r.Sources != (Sources{Provider: "disabled", DB: "ok", Registry: "ok"}) || r.Policy != PolicyStrict ||
		r.PolicyVersion != PolicyVersion || r.ScoringVersion != ScoringVersion {
		t.Fatalf("response head: %+v", r)
	}
	if len(r.Suppressed) != 1 || r.Suppressed[0].Mint != provMint { // strict: no market data
		t.Fatalf("suppressed: %+v", r.Suppressed)
	}
}

// TestResultMetadata: results carry the reference's shapes: attestation
// codes, and market decimals and logoURI from the registry, else the
// token index, else the market snapshot (cleaned).
func TestResultMetadata(t *testing.T) {
	snap := seedSnapshot(t)
	// Synthetic mints (base58 shapes, not real tokens).
	const withMeta, bare = "SynMeta1111111111111111111111111111111111111", "SynBare1111111111111111111111111111111111111"
	nine, five, seven := 9, 5, 7
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: withMeta, Symbol: "SYNMETA", Name: "Synthetic meta", Decimals: &nine, LogoURI: "https://example.invalid/meta.png"})
	b.Add(tokenindex.Token{Mint: bare, Symbol: "SYNMETA", Name: "Synthetic bare"})
	x := b.Build()
	badLogo, goodLogo := "javascript:alert(1)", "https://example.invalid/market.png"
	mk := &markets{m: map[string]*asset.Market{
		withMeta: {Decimals: &five, LogoURI: &goodLogo},
		bare:     {Decimals: &seven, LogoURI: &badLogo},
	}}
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, Index: func() *tokenindex.Index { return x }, Markets: mk,
		Now: func() time.Time { return now }})
	tests := []struct {
		query, mint string
		decimals    *int
		logo        string // "" for null
	}{
		{"USDC", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", ptr(6), "https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v/logo.png"},
		{"SYNMETA", withMeta, &nine, "https://example.invalid/meta.png"},
		{"SYNMETA", bare, &seven, ""},
	}
	for _, tt := range tests {
		res := svc.Search(context.Background(), Request{Query: tt.query, Policy: PolicyDegen, Limit: MaxLimit})
		i := slices.IndexFunc(res.Results, func(r Result) bool { return r.Mint == tt.mint })
		if i < 0 {
			t.Fatalf("%s not found for %s: %+v", tt.mint, tt.query, res)
		}
		r := res.Results[i]
		if r.Market.Decimals == nil || *r.Market.Decimals != *tt.decimals || deref(r.Market.LogoURI) != tt.logo {
			t.Errorf("%s: decimals %v logo %q, want %d %q", tt.mint, r.Market.Decimals, deref(r.Market.LogoURI), *tt.decimals, tt.logo)
		}
		for _, a := range r.Claims.Attestations {
			if a.Code != a.Kind || a.Code == "" {
				t.Errorf("%s: attestation %+v", tt.mint, a)
			}
		}
	}
}
