package registry

import (
	"strings"
	"testing"
)

func TestValidAssetID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"usd", true},
		{"avalanche-2", true},
		{"sp500", true},
		{"pre-pren1fvf", true},
		{"ishares-core-sandp-total-us-stock-market-etf", true},
		{"x", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"USD", false},
		{"-usd", false},
		{"usd-", false},
		{"us--d", false},
		{"us_d", false},
		{"us d", false},
		{"usd:usdc", false},
		{"solana-" + mintUSDC, false}, // reserved singleton form
		{"solana-" + strings.ToLower(mintUSDC), true}, // not a valid mint, so an ordinary slug
		{"solana-foo", true},
	}
	for _, tt := range tests {
		if got := ValidAssetID(tt.in); got != tt.want {
			t.Errorf("ValidAssetID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSingletonIDs(t *testing.T) {
	if got, want := SingletonAssetID(mintUSDC), "solana-"+mintUSDC; got != want {
		t.Errorf("SingletonAssetID = %q, want %q", got, want)
	}
	if got, want := SingletonVariantID(mintUSDC), "solana-"+mintUSDC+":mint"; got != want {
		t.Errorf("SingletonVariantID = %q, want %q", got, want)
	}
	tests := []struct {
		in       string
		wantMint string
		wantOK   bool
	}{
		{"solana-" + mintUSDC, mintUSDC, true},
		{"solana-abc", "abc", false},
		{mintUSDC, "", false},
		{"solana", "", false},
	}
	for _, tt := range tests {
		mint, ok := SingletonMint(tt.in)
		if mint != tt.wantMint || ok != tt.wantOK {
			t.Errorf("SingletonMint(%q) = %q, %v; want %q, %v", tt.in, mint, ok, tt.wantMint, tt.wantOK)
		}
	}
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"usd-coin", "usd-coin"},
		{"Wrapped Bitcoin", "wrapped-bitcoin"},
		{"  --a__b..c--  ", "a-b-c"},
		{"über", "ber"},
		{"!!!", ""},
		{strings.Repeat("ab-", 40), strings.TrimRight(strings.Repeat("ab-", 40)[:64], "-")},
	}
	for _, tt := range tests {
		if got := slugify(tt.in); got != tt.want {
			t.Errorf("slugify(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
