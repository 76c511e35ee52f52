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

// TestSelectPrimaryRestricted: a restricted candidate (compromised or
// blocked advisory) loses to any unrestricted one, whatever its liquidity,
// kind or strategy; it is chosen only when every candidate is restricted.
func TestSelectPrimaryRestricted(t *testing.T) {
	tests := []struct {
		name  string
		cands []Candidate
		want  string
		cand  []Candidacy
	}{
		{"restricted most liquid", []Candidate{
			{Mint: "a", Kind: asset.KindWrapped, Market: active(9_000_000), Restricted: true},
			{Mint: "b", Kind: asset.KindWrapped, Market: active(1_000)},
		}, "b", []Candidacy{RestrictedVariant, IsCandidate}},
		{"only unrestricted is not spot-like", []Candidate{
			{Mint: "a", Kind: asset.KindNative, Market: active(9_000_000), Restricted: true},
			{Mint: "b", Kind: asset.KindYield, Market: active(1_000)},
		}, "b", []Candidacy{RestrictedVariant, IsCandidate}},
		{"every candidate restricted", []Candidate{
			{Mint: "a", Kind: asset.KindWrapped, Market: active(9_000_000), Restricted: true},
			{Mint: "b", Kind: asset.KindWrapped, Market: active(1_000), Restricted: true},
		}, "a", []Candidacy{IsCandidate, IsCandidate}},
		{"unrestricted kept, restricted and non-spot dropped", []Candidate{
			{Mint: "a", Kind: asset.KindWrapped, Market: active(9_000_000), Restricted: true},
			{Mint: "b", Kind: asset.KindYield, Market: active(5_000_000)},
			{Mint: "c", Kind: asset.KindBridged, Market: active(1_000_000)},
		}, "c", []Candidacy{RestrictedVariant, NotSpotLike, IsCandidate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range asset.Strategies {
				i, _ := SelectPrimary(tt.cands, s, "crypto", now)
				if i < 0 || tt.cands[i].Mint != tt.want {
					t.Errorf("%s: primary %d, want %s", s, i, tt.want)
				}
			}
			if got := PrimaryCandidacy(tt.cands); !slices.Equal(got, tt.cand) {
				t.Errorf("candidacy = %v, want %v", got, tt.cand)
			}
		})
	}
}
