package registry

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

func TestCuratedListsAlwaysPresentInOrder(t *testing.T) {
	s, _ := mustBuild(t, fixtureDoc())
	var ids []string
	for _, l := range s.CuratedLists() {
		ids = append(ids, l.ID)
		if l.Name == "" || l.Members == nil {
			t.Errorf("list %s has no name or nil members", l.ID)
		}
	}
	if diff := cmp.Diff(asset.CuratedLists, ids); diff != "" {
		t.Errorf("list order (-want +got):\n%s", diff)
	}
	if l, ok := s.CuratedList("metals"); !ok || len(l.Members) != 0 {
		t.Errorf("undefined list metals = %+v, %v; want present and empty", l, ok)
	}
	if _, ok := s.CuratedList("stables"); ok {
		t.Error("unknown list id found")
	}
}

func TestCuratedMembersResolvedAndRanked(t *testing.T) {
	s, _ := mustBuild(t, fixtureDoc())
	cur, _ := s.CuratedList("currencies")
	want := []CuratedMember{
		{Mint: mintUSDC, Rank: 0, AssetID: "usd"},
		{Mint: mintUSDT, Rank: 1, AssetID: "usd"},
	}
	if diff := cmp.Diff(want, cur.Members); diff != "" {
		t.Errorf("currencies members sorted by rank (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"usd"}, s.CuratedAssetIDs("currencies")); diff != "" {
		t.Errorf("CuratedAssetIDs (-want +got):\n%s", diff)
	}
}

func TestCuratedAllAndRank(t *testing.T) {
	doc := fixtureDoc()
	doc.CuratedLists = append(doc.CuratedLists,
		// Listed before majors in the document, but ranks follow list order.
		CuratedList{ID: "stocks", Members: []CuratedMember{{Mint: mintUSDT}, {Mint: mintUnknown}}},
		CuratedList{ID: "lsts", Members: []CuratedMember{{Mint: mintJitoSOL}, {Mint: mintWSOL}}},
	)
	s, r := mustBuild(t, doc)

	all, _ := s.CuratedList("all")
	var got []string
	for _, m := range all.Members {
		got = append(got, m.AssetID+"@"+m.Mint)
	}
	want := []string{
		"solana@" + mintWSOL, // majors
		"bonk@" + mintBONK,
		"usd@" + mintUSDC,                           // currencies (lsts add only solana again)
		"solana-" + mintUnknown + "@" + mintUnknown, // stocks; USDT's asset already present
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("all list (-want +got):\n%s", diff)
	}
	for i, m := range all.Members {
		if m.Rank != i {
			t.Errorf("all member %d has rank %d", i, m.Rank)
		}
	}
	if diff := cmp.Diff([]string{"solana", "bonk", "usd", "solana-" + mintUnknown}, s.CuratedAssetIDs("all")); diff != "" {
		t.Errorf("all asset ids (-want +got):\n%s", diff)
	}

	// majors wSOL, BONK; lsts JitoSOL (wSOL seen); currencies USDC, USDT;
	// stocks unknown (USDT seen).
	ranks := map[string]int{mintWSOL: 0, mintBONK: 1, mintJitoSOL: 2, mintUSDC: 3, mintUSDT: 4, mintUnknown: 5}
	for mint, want := range ranks {
		if got, ok := s.CuratedRank(mint); !ok || got != want {
			t.Errorf("CuratedRank(%s) = %d, %v; want %d", mint, got, ok, want)
		}
	}
	if _, ok := s.CuratedRank(mintJUP); ok {
		t.Error("CuratedRank of an uncurated mint is ok")
	}
	if got := r.Filter(IssueCuratedUnknownMint); len(got) != 1 || got[0].Mint != mintUnknown || got[0].ListID != "stocks" {
		t.Errorf("curated_unknown_mint = %v", got)
	}
}

func TestCuratedMergeAcrossDocuments(t *testing.T) {
	overlay := Document{CuratedLists: []CuratedList{{
		ID: "majors", Name: "Crypto", Description: "From the overlay.",
		Members: []CuratedMember{
			{Mint: mintBONK, Rank: 0, AddedAt: 5},      // already present: keeps its place and addedAt
			{Mint: mintUSDC, Rank: 2, AssetID: "bonk"}, // new; wrong hint
			{Mint: mintUSDT, Rank: 1, AddedAt: 7},      // new
		},
	}}}
	doc := fixtureDoc()
	doc.CuratedLists[0].Members[1].AddedAt = 3
	s, r := mustBuild(t, doc, overlay)
	majors, _ := s.CuratedList("majors")
	want := []CuratedMember{
		{Mint: mintWSOL, Rank: 0, AssetID: "solana"},
		{Mint: mintBONK, Rank: 1, AssetID: "bonk", AddedAt: 3},
		{Mint: mintUSDT, Rank: 2, AssetID: "usd", AddedAt: 7},
		{Mint: mintUSDC, Rank: 3, AssetID: "usd"},
	}
	if diff := cmp.Diff(want, majors.Members); diff != "" {
		t.Errorf("merged majors (-want +got):\n%s", diff)
	}
	if majors.Name != "Crypto" || majors.Description != "From the overlay." {
		t.Errorf("name/description = %q/%q, want the overlay's", majors.Name, majors.Description)
	}
	if got := r.Count(IssueCuratedDuplicateMember); got != 1 {
		t.Errorf("curated_duplicate_member = %d, want 1", got)
	}
	if got := r.Filter(IssueCuratedAssetMismatch); len(got) != 1 || got[0].Mint != mintUSDC {
		t.Errorf("curated_asset_mismatch = %v", got)
	}
}
