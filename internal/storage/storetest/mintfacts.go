package storetest

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/storage"
	"github.com/google/go-cmp/cmp"
)

// testMintFacts: a put replaces the current read of a mint and appends its
// changes; the log pages newest first by mint, time and seq; every put
// bumps the mintfacts topic.
func testMintFacts(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	a := storage.MintFacts{Mint: "mintA", Status: "ok", Slot: 10, ReadAt: 1000, Facts: []byte(`{"decimals":6}`)}
	b := storage.MintFacts{Mint: "mintB", Status: "unknown_mint", Slot: 10, ReadAt: 1000}
	if err := s.PutMintFacts(ctx, []storage.MintFacts{a, b}, nil); err != nil {
		t.Fatal(err)
	}
	a2 := a
	a2.Slot, a2.ReadAt, a2.Facts = 20, 2000, []byte(`{"decimals":6,"freezeAuthority":"x"}`)
	changes := []storage.MintChange{
		{Mint: "mintA", Field: "freezeAuthority", Old: "null", New: `"x"`, Slot: 20, At: 2000, Source: "chain"},
		{Mint: "mintA", Field: "mintAuthority", Old: `"y"`, New: "null", Slot: 20, At: 2000, Source: "chain"},
	}
	if err := s.PutMintFacts(ctx, []storage.MintFacts{a2}, changes); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMintFacts(ctx, nil, []storage.MintChange{{Mint: "mintB", Field: "symbol", Old: `"B"`, New: `"USDC"`, At: 3000, Source: "registry"}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListMintFacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b.Facts = []byte{}
	if d := cmp.Diff([]storage.MintFacts{a2, b}, got); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
	all, err := s.MintChanges(ctx, nil, 0, 0, 10)
	if err != nil || len(all) != 3 || all[0].Field != "symbol" || all[1].Field != "mintAuthority" || all[2].Field != "freezeAuthority" {
		t.Fatalf("all changes %+v %v", all, err)
	}
	if all[0].Seq <= all[1].Seq || all[1].Seq <= all[2].Seq {
		t.Errorf("seq not descending: %+v", all)
	}
	onlyA, err := s.MintChanges(ctx, []string{"mintA"}, 0, 0, 1)
	if err != nil || len(onlyA) != 1 || onlyA[0].Field != "mintAuthority" || onlyA[0].Slot != 20 || onlyA[0].Source != "chain" {
		t.Fatalf("mintA limit 1: %+v %v", onlyA, err)
	}
	next, err := s.MintChanges(ctx, []string{"mintA"}, 0, onlyA[0].Seq, 10)
	if err != nil || len(next) != 1 || next[0].Field != "freezeAuthority" || next[0].Old != "null" || next[0].New != `"x"` {
		t.Fatalf("mintA page 2: %+v %v", next, err)
	}
	since, err := s.MintChanges(ctx, nil, 2500, 0, 10)
	if err != nil || len(since) != 1 || since[0].Mint != "mintB" {
		t.Fatalf("since: %+v %v", since, err)
	}
	v, err := s.Versions(ctx)
	if err != nil || v[storage.TopicMintFacts] != 3 {
		t.Errorf("mintfacts version %d %v", v[storage.TopicMintFacts], err)
	}
}
