package curator

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/registry/registrytest"
	"github.com/assetd/assetd/internal/tokenindex"
)

// naiveRegistryCandidates is fromRegistry as a plain scan that normalises
// every variant's claims on the spot: the reference regKeys must agree
// with.
func naiveRegistryCandidates(snap *registry.Snapshot, in Interpretation) []string {
	q := in.NormalizedQuery
	type hit struct {
		mint string
		rank int
	}
	var hits []hit
	for i := range snap.Assets() {
		a := &snap.Assets()[i]
		for j := range a.Variants {
			v := &a.Variants[j]
			var syms []string
			for _, s := range ClaimedSymbols(a, v) {
				syms = append(syms, tokenindex.Key(s))
			}
			name := tokenindex.Key(cmp.Or(v.Name, a.Name))
			rank := -1
			switch {
			case in.Intent == IntentMint:
				if v.Mint == q {
					rank = 0
				}
			case slices.Contains(syms, q) || name == q:
				rank = 0
			case len(q) >= 2 && slices.ContainsFunc(syms, func(k string) bool { return strings.HasPrefix(k, q) }):
				rank = 1
			case len(q) >= 3 && strings.Contains(name, q):
				rank = 2
			}
			if rank >= 0 {
				hits = append(hits, hit{v.Mint, rank})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.rank, b.rank) })
	var out []string
	for i, h := range hits {
		if i == maxRegistryCandidates {
			break
		}
		if !slices.Contains(out, h.mint) {
			out = append(out, h.mint)
		}
	}
	return out
}

func TestRegistryCandidates(t *testing.T) {
	snaps := []struct {
		name string
		snap *registry.Snapshot
	}{
		{"seed", seedSnapshot(t)},
		{"synthetic", syntheticSnapshot(t, 2_000)},
	}
	queries := []string{"SOL", "sol", "wsol", "USDC", "usd", "us", "u", "bonk", "jupiter", "wrapped", "staked sol", "syn000120",
		"SYN0001", "wsyn", "synthetic asset 12", "asset 1999", "", "$", "  ", "nothing-matches-this",
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "So11111111111111111111111111111111111111112", registrytest.Mint(42)}
	for _, sn := range snaps {
		hits := 0
		svc := New(Config{Registry: func() *registry.Snapshot { return sn.snap }})
		for _, q := range queries {
			in := Interpret(q)
			g := &gather{d: svc.current(), byMnt: map[string]*Candidate{}}
			svc.fromRegistry(g, in)
			want := naiveRegistryCandidates(sn.snap, in)
			hits += len(want)
			if !slices.Equal(g.order, want) {
				t.Errorf("%s: %q (%s): candidates %v, want %v", sn.name, q, in.Intent, g.order, want)
			}
		}
		if hits < 50 {
			t.Errorf("%s: %d candidates over all queries; the queries test little", sn.name, hits)
		}
	}
}

func TestRegKeys(t *testing.T) {
	assets := []registry.Asset{
		{AssetID: "a", Symbol: "AAA", Name: "Alpha", Variants: []registry.Variant{
			{Kind: "native"}, // claims AAA, name Alpha
			{Kind: "wrapped", Symbol: "wAAA", Name: "W Alpha"}, // claims WAAA and AAA
			{Kind: "lst"}, // derivative: claims nothing
		}},
		{AssetID: "b", Name: "$beta", Variants: []registry.Variant{{Kind: "native", Symbol: "$bb"}}},
	}
	r := buildRegKeys(assets)
	want := [][]string{{"AAA", "ALPHA"}, {"WAAA", "AAA", "W ALPHA"}, {"ALPHA"}, {"BB", "BETA"}}
	k := 0
	for v, keys := range want {
		if n := int(r.nsym[v]) + 1; n != len(keys) {
			t.Fatalf("variant %d: %d keys, want %v", v, n, keys)
		}
		for _, w := range keys {
			if got := r.key(k); got != w {
				t.Errorf("variant %d: key %d = %q, want %q", v, k, got, w)
			}
			k++
		}
	}
	if k != r.keys.Len() {
		t.Errorf("%d keys of %d", k, r.keys.Len())
	}
	ranks := []struct {
		v    int
		q    string
		want int
	}{
		{0, "AAA", 0}, {0, "ALPHA", 0}, {0, "AA", 1}, {0, "A", -1}, {0, "LPH", 2}, {0, "LP", -1},
		{1, "AAA", 0}, {1, "WA", 1}, {1, "W ALPHA", 0}, {1, "ALPHA", 2},
		{2, "AAA", -1}, {2, "ALPHA", 0}, {2, "ALP", 2},
		{3, "BB", 0}, {3, "ETA", 2}, {3, "$BB", -1},
	}
	first := []int{0, 2, 5, 6}
	for _, tt := range ranks {
		got, next := r.rank(tt.v, first[tt.v], tt.q)
		if got != tt.want {
			t.Errorf("variant %d, %q: rank %d, want %d", tt.v, tt.q, got, tt.want)
		}
		if wantNext := first[tt.v] + len(want[tt.v]); next != wantNext {
			t.Errorf("variant %d: next key %d, want %d", tt.v, next, wantNext)
		}
	}
}
