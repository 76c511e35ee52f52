package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
)

func TestValidateAcceptsFixture(t *testing.T) {
	if err := Validate(fixtureDoc()); err != nil {
		t.Fatalf("Validate(fixture) = %v", err)
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(d *Document)
		want   Problem // Message is matched as a substring
	}{
		{
			name:   "mint not base58",
			mutate: func(d *Document) { d.Assets[1].Variants[0].Mint = "0xdeadbeef" },
			want:   Problem{AssetID: "usd", VariantID: "usd:usdc", Mint: "0xdeadbeef", Message: "not a base58 32-byte address"},
		},
		{
			name:   "mint decodes to 33 bytes",
			mutate: func(d *Document) { d.Assets[1].Variants[0].Mint = strings.Repeat("1", 33) },
			want:   Problem{AssetID: "usd", VariantID: "usd:usdc", Mint: strings.Repeat("1", 33), Message: "not a base58 32-byte address"},
		},
		{
			name:   "mint twice in one asset",
			mutate: func(d *Document) { d.Assets[1].Variants[1].Mint = mintUSDC },
			want:   Problem{AssetID: "usd", VariantID: "usd:usdt", Mint: mintUSDC, Message: "mint listed twice in one asset"},
		},
		{
			name:   "unknown kind",
			mutate: func(d *Document) { d.Assets[0].Variants[0].Kind = "spot" },
			want:   Problem{AssetID: "solana", VariantID: "solana:wsol", Mint: mintWSOL, Message: `kind "spot" is not one of`},
		},
		{
			name:   "unknown category",
			mutate: func(d *Document) { d.Assets[2].Category = "memecoin" },
			want:   Problem{AssetID: "bonk", Message: `category "memecoin" is not one of`},
		},
		{
			name:   "unknown stockVariantTier",
			mutate: func(d *Document) { d.Assets[2].Variants[0].StockVariantTier = "redeemable" },
			want:   Problem{AssetID: "bonk", VariantID: "bonk:bonk", Mint: mintBONK, Message: `stockVariantTier "redeemable"`},
		},
		{
			name:   "unknown liquidity tier",
			mutate: func(d *Document) { d.Assets[2].Variants[0].LiquidityTier = "tier0" },
			want:   Problem{AssetID: "bonk", VariantID: "bonk:bonk", Mint: mintBONK, Message: `liquidityTier "tier0"`},
		},
		{
			name: "trust tier does not mirror liquidity tier",
			mutate: func(d *Document) {
				d.Assets[2].Variants[0].LiquidityTier = asset.Tier1
				d.Assets[2].Variants[0].TrustTier = asset.Tier2
			},
			want: Problem{AssetID: "bonk", VariantID: "bonk:bonk", Mint: mintBONK, Message: "must mirror liquidityTier"},
		},
		{
			name:   "upper-case slug",
			mutate: func(d *Document) { d.Assets[2].AssetID = "Bonk"; d.Assets[2].Variants[0].VariantID = "Bonk:bonk" },
			want:   Problem{AssetID: "Bonk", Message: "assetId is not a canonical slug"},
		},
		{
			name: "singleton-form slug",
			mutate: func(d *Document) {
				id := "solana-" + mintBONK
				d.Assets[2].AssetID = id
				d.Assets[2].Variants[0].VariantID = id + ":bonk"
			},
			want: Problem{AssetID: "solana-" + mintBONK, Message: "assetId is not a canonical slug"},
		},
		{
			name: "duplicate asset id",
			mutate: func(d *Document) {
				d.Assets[2].AssetID = "usd"
				d.Assets[2].Variants[0].VariantID = "usd:bonk"
			},
			want: Problem{AssetID: "usd", Message: "duplicate assetId"},
		},
		{
			name:   "variant id without asset prefix",
			mutate: func(d *Document) { d.Assets[2].Variants[0].VariantID = "bonkcoin:bonk" },
			want:   Problem{AssetID: "bonk", VariantID: "bonkcoin:bonk", Mint: mintBONK, Message: `variantId must be "bonk:"`},
		},
		{
			name:   "variant id with a space",
			mutate: func(d *Document) { d.Assets[2].Variants[0].VariantID = "bonk:the bonk" },
			want:   Problem{AssetID: "bonk", VariantID: "bonk:the bonk", Mint: mintBONK, Message: "variantId must be"},
		},
		{
			name: "duplicate variant id",
			mutate: func(d *Document) {
				d.Assets[1].Variants[1].VariantID = "usd:usdc"
			},
			want: Problem{AssetID: "usd", VariantID: "usd:usdc", Message: "duplicate variantId"},
		},
		{
			name:   "asset without variants",
			mutate: func(d *Document) { d.Assets[2].Variants = nil },
			want:   Problem{AssetID: "bonk", Message: "asset has no variants"},
		},
		{
			name:   "padded alias",
			mutate: func(d *Document) { d.Assets[1].Aliases = []string{" dollar"} },
			want:   Problem{AssetID: "usd", Message: `alias " dollar"`},
		},
		{
			name:   "control character in name",
			mutate: func(d *Document) { d.Assets[1].Name = "US\x00Dollar" },
			want:   Problem{AssetID: "usd", Message: "name"},
		},
		{
			name:   "relative image URL",
			mutate: func(d *Document) { d.Assets[1].ImageURL = "/logos/usd.png" },
			want:   Problem{AssetID: "usd", Message: "imageUrl"},
		},
		{
			name:   "decimals out of range",
			mutate: func(d *Document) { d.Assets[2].Variants[0].Decimals = intPtr(300) },
			want:   Problem{AssetID: "bonk", VariantID: "bonk:bonk", Mint: mintBONK, Message: "decimals 300"},
		},
		{
			name:   "pre-IPO mint not a variant",
			mutate: func(d *Document) { d.Assets[2].PreIPO = &PreIPO{Symbol: "BONK", Mint: mintUSDC} },
			want:   Problem{AssetID: "bonk", Mint: mintUSDC, Message: "preIpo.mint is not a variant"},
		},
		{
			name:   "curated list all is derived",
			mutate: func(d *Document) { d.CuratedLists[0].ID = "all" },
			want:   Problem{ListID: "all", Message: "list id must be one of"},
		},
		{
			name:   "curated list defined twice",
			mutate: func(d *Document) { d.CuratedLists[1].ID = "majors" },
			want:   Problem{ListID: "majors", Message: "list defined twice"},
		},
		{
			name:   "curated member with bad mint",
			mutate: func(d *Document) { d.CuratedLists[0].Members[0].Mint = "nope" },
			want:   Problem{ListID: "majors", Mint: "nope", Message: "member mint is not a base58"},
		},
		{
			name:   "curated member twice",
			mutate: func(d *Document) { d.CuratedLists[0].Members[1].Mint = mintWSOL },
			want:   Problem{ListID: "majors", Mint: mintWSOL, Message: "member listed twice"},
		},
		{
			name:   "mintHomes bad home",
			mutate: func(d *Document) { d.MintHomes = map[string]string{mintUSDC: "US Dollar"} },
			want:   Problem{AssetID: "US Dollar", Mint: mintUSDC, Message: "home is not a valid assetId"},
		},
		{
			name:   "lstIndex wrong kind",
			mutate: func(d *Document) { d.LSTIndex[0].Kind = asset.KindNative },
			want:   Problem{AssetID: "solana", VariantID: "solana:" + mintJitoSOL, Mint: mintJitoSOL, Message: "lstIndex: kind"},
		},
		{
			name:   "lstIndex bad mint",
			mutate: func(d *Document) { d.LSTIndex[0].Mint = "x" },
			want:   Problem{AssetID: "solana", VariantID: "solana:" + mintJitoSOL, Mint: "x", Message: "lstIndex: mint is not"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fixtureDoc()
			tt.mutate(&doc)
			err := Validate(doc)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Validate = %v, want a *ValidationError", err)
			}
			for _, p := range verr.Problems {
				msg := p.Message
				p.Message = tt.want.Message
				if cmp.Equal(p, tt.want) && strings.Contains(msg, tt.want.Message) {
					if !strings.Contains(err.Error(), msg) {
						t.Errorf("error text %q does not carry the problem %q", err, msg)
					}
					return
				}
			}
			t.Errorf("problems %+v do not include %+v", verr.Problems, tt.want)
		})
	}
}

func TestValidateAcceptsLegacyAndMirroredTiers(t *testing.T) {
	doc := fixtureDoc()
	doc.Assets[2].Variants[0].TrustTier = asset.TierExperimental
	doc.Assets[1].Variants[1].LiquidityTier = asset.Tier2
	doc.Assets[1].Variants[1].TrustTier = asset.Tier2
	if err := Validate(doc); err != nil {
		t.Fatalf("Validate = %v", err)
	}
}

func TestValidationErrorListsAtMostTenProblems(t *testing.T) {
	doc := fixtureDoc()
	for i := 0; i < 15; i++ {
		doc.Assets[2].Aliases = append(doc.Assets[2].Aliases, "")
	}
	err := Validate(doc)
	if err == nil || !strings.Contains(err.Error(), "and 5 more") {
		t.Fatalf("Validate = %v, want the error to count the problems it does not spell out", err)
	}
}
