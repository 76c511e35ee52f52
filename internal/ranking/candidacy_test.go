package ranking

import (
	"slices"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

func TestPrimaryCandidacy(t *testing.T) {
	cands := []Candidate{
		{Mint: "a", Kind: asset.KindWrapped, Market: active(1_000_000)},
		{Mint: "b", Kind: asset.KindYield, Market: active(5_000_000)},
		{Mint: "c", Kind: asset.KindBridged, Market: mkt(900_000, 10, 1)}, // below the activity gate
		{Mint: "d", Kind: asset.KindWrapped, Market: active(2_000_000)},
	}
	got := PrimaryCandidacy(cands)
	want := []Candidacy{IsCandidate, NotSpotLike, DroppedByActivity, IsCandidate}
	if !slices.Equal(got, want) {
		t.Errorf("candidacy = %v, want %v", got, want)
	}
	// No spot-like variant: all are candidates (as SelectPrimary does).
	only := []Candidate{{Mint: "x", Kind: asset.KindYield}, {Mint: "y", Kind: asset.KindLeveraged}}
	if got := PrimaryCandidacy(only); !slices.Equal(got, []Candidacy{IsCandidate, IsCandidate}) {
		t.Errorf("all non-spot: %v", got)
	}
	// The winner of SelectPrimary is always a candidate.
	i, _ := SelectPrimary(cands, asset.StrategyLiquidity, "crypto", now)
	if got[i] != IsCandidate {
		t.Errorf("primary %d is not a candidate", i)
	}
}
