package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	s, _ := mustBuild(t, fixtureDoc())
	tests := []struct {
		name        string
		ref         string
		wantAsset   string
		wantBy      string
		wantMint    string
		wantVariant string // variant id; "" for none
	}{
		{"canonical slug", "usd", "usd", asset.ResolvedByAssetID, "", ""},
		{"slug with surrounding spaces", "  usd ", "usd", asset.ResolvedByAssetID, "", ""},
		{"slug in other case", "USD", "usd", asset.ResolvedByAlias, "", ""},
		{"asset name", "us dollar", "usd", asset.ResolvedByAlias, "", ""},
		{"asset alias, mixed case", "DoLLaR", "usd", asset.ResolvedByAlias, "", ""},
		{"coin id", "SOLANA", "solana", asset.ResolvedByAlias, "", ""},
		{"variant symbol", "usdc", "usd", asset.ResolvedByAlias, "", ""},
		{"variant name", "USD Coin", "usd", asset.ResolvedByAlias, "", ""},
		{"variant id", "usd:usdt", "usd", asset.ResolvedByAlias, "", ""},
		{"raw mint", mintUSDC, "usd", asset.ResolvedByMint, mintUSDC, "usd:usdc"},
		{"solana-<mint> known", "solana-" + mintUSDT, "usd", asset.ResolvedBySingletonMint, mintUSDT, "usd:usdt"},
		{"LST index mint", mintJitoSOL, "solana", asset.ResolvedByLSTIndex, mintJitoSOL, "solana:" + mintJitoSOL},
		{"solana-<LST index mint>", "solana-" + mintJitoSOL, "solana", asset.ResolvedByLSTIndex, mintJitoSOL, "solana:" + mintJitoSOL},
		{"LST index symbol", "jitosol", "solana", asset.ResolvedByLSTIndex, "", ""},
		{"LST index name", "Jito Staked SOL", "solana", asset.ResolvedByLSTIndex, "", ""},
		{"unknown raw mint", mintUnknown, "solana-" + mintUnknown, asset.ResolvedBySingleton, mintUnknown, "solana-" + mintUnknown + ":mint"},
		{"unknown solana-<mint>", "solana-" + mintUnknown, "solana-" + mintUnknown, asset.ResolvedBySingleton, mintUnknown, "solana-" + mintUnknown + ":mint"},
		{"system program is a valid unknown mint", mintSystem, "solana-" + mintSystem, asset.ResolvedBySingleton, mintSystem, "solana-" + mintSystem + ":mint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Resolve(tt.ref)
			if err != nil {
				t.Fatalf("Resolve(%q) error: %v", tt.ref, err)
			}
			if res.AssetID != tt.wantAsset || res.ResolvedBy != tt.wantBy || res.Mint != tt.wantMint {
				t.Errorf("Resolve(%q) = %s/%s/mint %q; want %s/%s/mint %q", tt.ref, res.AssetID, res.ResolvedBy, res.Mint, tt.wantAsset, tt.wantBy, tt.wantMint)
			}
			if res.Asset == nil || res.Asset.AssetID != res.AssetID {
				t.Errorf("Asset = %+v, want the resolved asset", res.Asset)
			}
			gotVariant := ""
			if res.Variant != nil {
				gotVariant = res.Variant.VariantID
			}
			if gotVariant != tt.wantVariant {
				t.Errorf("Variant = %q, want %q", gotVariant, tt.wantVariant)
			}
			if res.Ref != strings.TrimSpace(tt.ref) {
				t.Errorf("Ref = %q", res.Ref)
			}
			if res.Singleton() != (tt.wantBy == asset.ResolvedBySingleton) {
				t.Errorf("Singleton() = %v", res.Singleton())
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	s, _ := mustBuild(t, fixtureDoc())
	tests := []struct {
		name string
		ref  string
		want error
	}{
		{"empty", "", ErrInvalidRef},
		{"blank", "   ", ErrInvalidRef},
		{"control character", "us\x07d", ErrInvalidRef},
		{"invalid UTF-8", "us\xffd", ErrInvalidRef},
		{"too long", strings.Repeat("a", MaxRefLength+1), ErrInvalidRef},
		{"mint-shaped, wrong length", strings.Repeat("z", 44), ErrInvalidMint},
		{"lower-cased mint", strings.ToLower(mintUSDC), ErrInvalidMint},
		{"solana- with a mint-shaped bad mint", "solana-" + strings.Repeat("z", 44), ErrInvalidMint},
		{"unknown slug", "dogecoin", ErrNotFound},
		{"solana- with a non-mint", "solana-foo", ErrNotFound},
		{"bare solana- prefix", "solana-", ErrNotFound},
		{"issuer label is not an alias", "circle", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Resolve(tt.ref)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Resolve(%q) error = %v, want %v", tt.ref, err, tt.want)
			}
			if errors.Is(err, ErrNotFound) && errors.Is(err, ErrInvalidRef) {
				t.Errorf("error %v is both not-found and invalid", err)
			}
			if res != (Resolution{}) {
				t.Errorf("Resolve returned %+v with an error", res)
			}
		})
	}
	if !errors.Is(ErrInvalidMint, ErrInvalidRef) {
		t.Error("ErrInvalidMint must wrap ErrInvalidRef")
	}
}

func TestResolveMint(t *testing.T) {
	s, _ := mustBuild(t, fixtureDoc())
	tests := []struct {
		mint, wantAsset, wantBy string
		wantErr                 error
	}{
		{mintBONK, "bonk", asset.ResolvedByMint, nil},
		{mintJitoSOL, "solana", asset.ResolvedByLSTIndex, nil},
		{mintUnknown, "solana-" + mintUnknown, asset.ResolvedBySingleton, nil},
		{"solana-" + mintBONK, "", "", ErrInvalidMint}, // only raw mints
		{"usd", "", "", ErrInvalidMint},
	}
	for _, tt := range tests {
		res, err := s.ResolveMint(tt.mint)
		if !errors.Is(err, tt.wantErr) || res.AssetID != tt.wantAsset || res.ResolvedBy != tt.wantBy {
			t.Errorf("ResolveMint(%q) = %s/%s, %v; want %s/%s, %v", tt.mint, res.AssetID, res.ResolvedBy, err, tt.wantAsset, tt.wantBy, tt.wantErr)
		}
	}
}

func TestSingletonShape(t *testing.T) {
	want := &Asset{
		AssetID:  "solana-" + mintUnknown,
		Category: "crypto",
		Aliases:  []string{mintUnknown},
		Variants: []Variant{{
			VariantID: "solana-" + mintUnknown + ":mint", Mint: mintUnknown, Kind: asset.KindNative,
			LiquidityTier: asset.Tier3, TrustTier: asset.Tier3, Tags: []string{},
		}},
	}
	got, err := NewSingleton(mintUnknown)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewSingleton (-want +got):\n%s", diff)
	}
	s, _ := mustBuild(t, fixtureDoc())
	for _, ref := range []string{mintUnknown, "solana-" + mintUnknown} {
		res, _ := s.Resolve(ref)
		if diff := cmp.Diff(want, res.Asset); diff != "" {
			t.Errorf("Resolve(%q) singleton (-want +got):\n%s", ref, diff)
		}
		if res.Variant != &res.Asset.Variants[0] {
			t.Errorf("Resolve(%q) variant does not point at the asset's variant", ref)
		}
	}
	if _, err := NewSingleton("nope"); !errors.Is(err, ErrInvalidMint) {
		t.Errorf("NewSingleton(bad) error = %v", err)
	}
}

func TestResolveAllocations(t *testing.T) {
	s, _ := mustBuild(t, fixtureDoc())
	tests := []struct {
		ref  string
		max  float64
		name string
	}{
		{"usd", 0, "slug"},
		{"USD Coin", 0, "alias"},
		{mintUSDC, 0, "mint"},
		{"solana-" + mintUSDC, 0, "solana-<mint>"},
		{mintUnknown, 2, "singleton"},
		{"solana-" + mintUnknown, 2, "solana-<singleton>"},
	}
	for _, tt := range tests {
		n := testing.AllocsPerRun(100, func() {
			if _, err := s.Resolve(tt.ref); err != nil {
				t.Fatal(err)
			}
		})
		if n > tt.max {
			t.Errorf("Resolve %s allocates %v times, want at most %v", tt.name, n, tt.max)
		}
	}
}
