package catalog

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	gocmp "github.com/google/go-cmp/cmp"
)

// syntheticDoc is a registry document of n VISIBLY SYNTHETIC assets (ids
// syn-NNNNNN, symbols SYNNNNNNN, names "Synthetic asset N"; mints from
// mintOf), every tenth with a wrapped variant, categories spread.
func syntheticDoc(n int) registry.Document {
	cats := []string{"crypto", "crypto", "crypto", "stablecoin", "rwa", "equity"}
	var doc registry.Document
	for i := range n {
		id := fmt.Sprintf("syn-%06d", i)
		a := registry.Asset{AssetID: id, Name: fmt.Sprintf("Synthetic asset %d", i), Symbol: fmt.Sprintf("SYN%06d", i),
			Category: cats[i%len(cats)],
			Variants: []registry.Variant{{VariantID: id + ":native", Mint: mintOf(id), Kind: asset.KindNative}}}
		if i%10 == 0 {
			a.Variants = append(a.Variants, registry.Variant{VariantID: id + ":wrapped", Mint: mintOf(id + "w"), Kind: asset.KindWrapped,
				Symbol: fmt.Sprintf("wSYN%06d", i), Name: fmt.Sprintf("Wrapped synthetic asset %d", i)})
		}
		doc.Assets = append(doc.Assets, a)
	}
	return doc
}

var syntheticSnap = sync.OnceValues(func() (*registry.Snapshot, error) {
	seed, err := registry.Seed()
	if err != nil {
		return nil, err
	}
	s, _, err := registry.Build(seed, syntheticDoc(8_000))
	return s, err
})

// scanSearch is the former v1 search: every asset scanned, classed by its
// keys, sorted by class, liquidity desc, asset id.
func scanSearch(m *model, q, category string, limit int) []string {
	lq := strings.ToLower(strings.TrimSpace(q))
	type hit struct {
		class int
		liq   float64
		id    string
	}
	var hits []hit
	for i, am := range m.assets {
		if category != "" && am.a.Category != category || !strings.Contains(m.indexes.blobs.At(i), lq) {
			continue
		}
		best := matchNone
		for _, k := range keysOf(m.indexes.blobs.At(i)) {
			switch {
			case k == lq:
				best = matchExact
			case best > matchPrefix && strings.HasPrefix(k, lq):
				best = matchPrefix
			case best > matchSubstring && strings.Contains(k, lq):
				best = matchSubstring
			}
		}
		if best != matchNone {
			hits = append(hits, hit{best, am.liquidity(), am.a.AssetID})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(b.liq, a.liq), strings.Compare(a.id, b.id))
	})
	ids := []string{}
	for i := range min(limit, len(hits)) {
		ids = append(ids, hits[i].id)
	}
	return ids
}

// TestSearchIndexMatchesScan: over the seed plus 8,000 synthetic assets
// (markets on the seed mints and on a third of the synthetic ones, many
// liquidity ties), the indexed search returns exactly what the former
// full scan returned, for queries of every length and class, rare and
// common, with and without a category.
func TestSearchIndexMatchesScan(t *testing.T) {
	snap, err := syntheticSnap()
	if err != nil {
		t.Fatal(err)
	}
	mr := syntheticMarkets(snap, "index")
	for mint := range mr.markets {
		if a, _, _ := snap.VariantByMint(mint); a != nil && strings.HasPrefix(a.AssetID, "syn-") {
			var n int
			fmt.Sscanf(a.AssetID, "syn-%d", &n)
			if n%3 != 0 {
				delete(mr.markets, mint)
			}
		}
	}
	c := New(snap, mr, func() time.Time { return testNow }, nil)
	m := c.model()
	queries := []string{"s", "S", "a", "x", "q", "z", "1", "0", " ", "sy", "syn", "SYN0", "syn-", "syn-0001", "syn000123",
		"SYN011999", "synthetic", "Synthetic asset", "asset 1", "asset 11", "asset 119", "t a", "ta", "et", "zq", "wsyn",
		"wrapped", "wrapped synthetic asset 110", "sol", "usd", "usdc", "bitcoin", "tesla", "so", "ol", "e", "n", "-",
		"nothing-matches-this", "ü", "0000", "9", "99", "999"}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 150 {
		keys := keysOf(m.indexes.blobs.At(rng.IntN(len(m.assets))))
		k := keys[rng.IntN(len(keys))]
		i := rng.IntN(len(k))
		queries = append(queries, k[i:i+1+rng.IntN(min(6, len(k)-i))])
	}
	for _, q := range queries {
		if strings.TrimSpace(q) == "" {
			continue
		}
		for _, category := range []string{"", "crypto", "equity", "index"} {
			all := scanSearch(m, q, category, 50)
			for _, limit := range []int{1, 7, 20, 50} {
				want := all[:min(limit, len(all))]
				got := []string{}
				for _, r := range c.Search(SearchOptions{Query: q, Category: category, Limit: limit}) {
					got = append(got, r.AssetID) // no token index: no singletons
				}
				if d := gocmp.Diff(want, got); d != "" {
					t.Fatalf("search %q category %q limit %d (-scan +index):\n%s", q, category, limit, d)
				}
			}
		}
	}
}

// keysOf lists the search keys of a blob.
func keysOf(blob string) []string {
	var out []string
	eachKey(blob, func(k string) bool { out = append(out, k); return true })
	return out
}

func TestSearchBlob(t *testing.T) {
	tests := []struct {
		name string
		a    registry.Asset
		want []string
	}{
		{"id only", registry.Asset{AssetID: "syn-000001"}, []string{"syn-000001"}},
		{"lower-cased, trimmed, distinct", registry.Asset{AssetID: "usdc", Symbol: " USDC ", Name: "USD Coin", CoinID: "usd-coin",
			StockTicker: "", Aliases: []string{"usd coin", "Circle USD", "  "},
			Variants: []registry.Variant{{Symbol: "USDC"}, {Symbol: "USDC.e", Name: "Bridged USD Coin"}}},
			[]string{"usdc", "usd coin", "usd-coin", "circle usd", "usdc.e", "bridged usd coin"}},
		{"many aliases", registry.Asset{AssetID: "a", Aliases: strings.Split("b c d e f g h i j k l m n o p q r s t u v b c", " ")},
			strings.Split("a b c d e f g h i j k l m n o p q r s t u v", " ")},
		{"non-ASCII", registry.Asset{AssetID: "x", Name: "ÉCOLE"}, []string{"x", "école"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blob := searchBlob(&tt.a)
			if got := keysOf(blob); !slices.Equal(got, tt.want) {
				t.Errorf("keys %q, want %q", got, tt.want)
			}
			if !strings.HasSuffix(blob, "\x00") || strings.Contains(blob, "\x00\x00") {
				t.Errorf("blob %q: every key ends with one \\x00", blob)
			}
		})
	}
}

// SearchIndexBuilt is closed once the index is there: at once up to
// syncIndexAssets assets, after the background build past it.
func TestSearchIndexBuilt(t *testing.T) {
	small, err := syntheticSnap()
	if err != nil {
		t.Fatal(err)
	}
	c := New(small, syntheticMarkets(small, "built"), func() time.Time { return testNow }, nil)
	select {
	case <-c.SearchIndexBuilt():
	default:
		t.Fatalf("%d assets: index not built by New", len(small.Assets()))
	}
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	large, _, err := registry.Build(seed, syntheticDoc(syncIndexAssets+1))
	if err != nil {
		t.Fatal(err)
	}
	c = New(large, syntheticMarkets(large, "built"), func() time.Time { return testNow }, nil)
	<-c.SearchIndexBuilt() // the test's deadline bounds a build that never ends
	if c.model().indexes.search.Load() == nil {
		t.Fatal("closed before the index was set")
	}
}
