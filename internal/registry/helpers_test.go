package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/strtab"
)

// Real Solana mints used by the tests.
const (
	mintWSOL    = "So11111111111111111111111111111111111111112"
	mintUSDC    = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	mintUSDT    = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
	mintBONK    = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"
	mintJUP     = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"
	mintJitoSOL = "J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn"
	mintMSOL    = "mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So"
	mintSystem  = "11111111111111111111111111111111"
	// mintUnknown is a real pump.fun mint that no test document lists.
	mintUnknown = "113er4GLruBrK7XoerB2YLe3SkaLc9KbFdGPrkFpump"
)

// sharedDataDir is the shared test data, relative to the package directory.
const sharedDataDir = "../../../shared/data"

// openSharedData opens a file of the shared data set, skipping the test when
// the data set is absent.
func openSharedData(t testing.TB, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(sharedDataDir, name))
	if os.IsNotExist(err) {
		t.Skipf("shared data %s not available", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func intPtr(i int) *int { return &i }

// fixtureDoc returns a small valid document: solana (wSOL), usd (USDC,
// USDT), bonk, two curated lists and one LST index entry (JitoSOL).
func fixtureDoc() Document {
	return Document{
		Assets: []Asset{
			{
				AssetID: "solana", Name: "Solana", Symbol: "SOL", Category: "crypto", CoinID: "solana",
				Variants: []Variant{{VariantID: "solana:wsol", Mint: mintWSOL, Kind: asset.KindNative, Symbol: "wSOL", Name: "Wrapped SOL", Decimals: intPtr(9)}},
			},
			{
				AssetID: "usd", Name: "US Dollar", Symbol: "USD", Category: "stablecoin", Aliases: []string{"dollar"},
				Variants: []Variant{
					{VariantID: "usd:usdc", Mint: mintUSDC, Kind: asset.KindStablecoin, Symbol: "USDC", Name: "USD Coin", Issuer: "Circle", LiquidityTier: asset.Tier1},
					{VariantID: "usd:usdt", Mint: mintUSDT, Kind: asset.KindStablecoin, Symbol: "USDT", Tags: []string{"tether"}},
				},
			},
			{
				AssetID: "bonk", Name: "Bonk", Symbol: "BONK", Category: "crypto",
				Variants: []Variant{{VariantID: "bonk:bonk", Mint: mintBONK, Kind: asset.KindNative}},
			},
		},
		CuratedLists: []CuratedList{
			{ID: "majors", Name: "Majors", Members: []CuratedMember{{Mint: mintWSOL, Rank: 0}, {Mint: mintBONK, Rank: 1}}},
			{ID: "currencies", Name: "Currencies", Members: []CuratedMember{{Mint: mintUSDT, Rank: 1}, {Mint: mintUSDC, Rank: 0}}},
		},
		LSTIndex: []Variant{{VariantID: "solana:" + mintJitoSOL, Mint: mintJitoSOL, Kind: asset.KindYield, Symbol: "JitoSOL", Name: "Jito Staked SOL"}},
	}
}

// mustBuild builds a snapshot or fails the test. It also builds deep
// copies of the documents with BuildParsed (which owns and changes its
// input) and fails unless both give the same snapshot and report.
func mustBuild(t testing.TB, seed Document, overlays ...Document) (*Snapshot, *Report) {
	t.Helper()
	owned := make([]Document, len(overlays))
	for i := range overlays {
		owned[i] = deepCopy(t, overlays[i])
	}
	ownedSeed := deepCopy(t, seed)
	s, r, err := Build(seed, overlays...)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	ps, pr, err := BuildParsed(ownedSeed, owned...)
	if err != nil {
		t.Fatalf("BuildParsed: %v", err)
	}
	// Alias tables and indexes hash with a seed of their own: compared by
	// content (the indexes by what they find: TestSnapshotLocatesEveryVariant).
	sa, pa := *s, *ps
	sa.aliases, pa.aliases = aliasIndex{}, aliasIndex{}
	sa.ids, sa.mints, sa.variants = strtab.Index{}, strtab.Index{}, strtab.Index{}
	pa.ids, pa.mints, pa.variants = strtab.Index{}, strtab.Index{}, strtab.Index{}
	if !reflect.DeepEqual(&sa, &pa) || !reflect.DeepEqual(aliasMap(s), aliasMap(ps)) || !reflect.DeepEqual(r, pr) {
		t.Fatalf("BuildParsed differs from Build:\n%+v\n%+v", r, pr)
	}
	return s, r
}

// aliasMap is the content of a snapshot's alias table.
func aliasMap(s *Snapshot) map[string]aliasEntry {
	m := make(map[string]aliasEntry, s.aliases.Len())
	for n := range s.aliases.Len() {
		m[s.aliases.Key(n)] = *s.aliases.Value(n)
	}
	return m
}

// deepCopy copies a document through its JSON form.
func deepCopy(t testing.TB, d Document) Document {
	t.Helper()
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var c Document
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}
