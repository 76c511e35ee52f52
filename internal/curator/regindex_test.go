package curator

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/registry/registrytest"
)

// crowdedSnapshot is the seed plus a VISIBLY SYNTHETIC registry whose
// symbols and names are drawn from a few letters and words, so a query
// matches many variants at every rank at once: equal keys, symbol
// prefixes and name substrings of the same text, variants claiming two
// symbols, derivatives claiming none, and names equal to other
// variants' symbols.
func crowdedSnapshot(tb testing.TB, n int) *registry.Snapshot {
	tb.Helper()
	rng := rand.New(rand.NewPCG(7, 34))
	letters := []string{"U", "S", "D", "C", "SO", "L", "$"}
	words := []string{"USD", "US", "DOLLAR", "SOL", "SOLANA", "STAKED", "COIN", "USDC", "SUSD", "SYNTHETIC"}
	sym := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(letters[rng.IntN(len(letters))])
		}
		return b.String()
	}
	name := func() string {
		var parts []string
		for range 1 + rng.IntN(3) {
			parts = append(parts, words[rng.IntN(len(words))])
		}
		return strings.Join(parts, " ")
	}
	kinds := []string{asset.KindNative, asset.KindWrapped, asset.KindLST, asset.KindStablecoin, asset.KindYield}
	doc := registry.Document{}
	mint := 0
	for i := range n {
		id := fmt.Sprintf("syn-crowd-%05d", i)
		a := registry.Asset{AssetID: id, Symbol: sym(), Name: "Synthetic " + name(), Category: "crypto"}
		if rng.IntN(4) == 0 {
			a.Name = name() // sometimes a name equal to a symbol of another
		}
		for j := range 1 + rng.IntN(3) {
			v := registry.Variant{VariantID: fmt.Sprintf("%s:%d", id, j), Mint: registrytest.Mint(mint), Kind: kinds[rng.IntN(len(kinds))]}
			mint++
			if rng.IntN(2) == 0 {
				v.Symbol = sym()
			}
			if rng.IntN(3) == 0 {
				v.Name = name()
			}
			a.Variants = append(a.Variants, v)
		}
		doc.Assets = append(doc.Assets, a)
	}
	seed, err := registry.Seed()
	if err != nil {
		tb.Fatal(err)
	}
	snap, _, err := registry.Build(seed, doc)
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// The registry index answers what a scan of every variant answers
// (naiveRegistryCandidates), over crowded and large registries and
// queries that hit every rank, few ranks, or nothing.
func TestRegIndexMatchesScan(t *testing.T) {
	snaps := []struct {
		name string
		snap *registry.Snapshot
	}{
		{"seed", seedSnapshot(t)},
		{"crowded", crowdedSnapshot(t, 3_000)},
		{"synthetic", syntheticSnapshot(t, 30_000)},
	}
	queries := []string{"u", "us", "usd", "usdc", "s", "so", "sol", "solana", "$", "$us", "d", "dc", "sd", "usds",
		"dollar", "staked", "staked sol", "coin", "oin", "sol usd", "synthetic", "synthetic usd", "ynt", "c", "cc",
		"uuuu", "sss", "syn", "syn0", "syn00", "syn029999", "wsyn", "wsyn0000", "asset", "asset 2", "asset 29999",
		"wrapped synthetic asset 10", "ic as", "jupiter", "bonk", "wif", "", " ", "nothing-at-all", "zz"}
	for _, sn := range snaps {
		hits := 0
		svc := New(Config{Registry: func() *registry.Snapshot { return sn.snap }})
		if x := svc.current().regx; len(x.post) != cap(x.post) {
			t.Errorf("%s: postings of %d bytes in %d", sn.name, len(x.post), cap(x.post))
		}
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
		if hits < 100 {
			t.Errorf("%s: %d candidates over all queries; the queries test little", sn.name, hits)
		}
	}
}

func TestLowest(t *testing.T) {
	l := lowest{n: 3}
	for _, v := range []uint32{9, 4, 7, 4, 8, 1, 9, 2} {
		if l.wants(v) {
			l.add(v)
		}
	}
	if want := []uint32{1, 2, 4}; !slices.Equal(l.vs, want) {
		t.Errorf("lowest = %v, want %v", l.vs, want)
	}
	if z := (lowest{}); z.wants(1) {
		t.Error("a zero bound wants variants")
	}
}
